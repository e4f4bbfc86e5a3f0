/**
 * One query sent as is to one upstream DNS server and its answer read back as is: over UDP from a fresh
 * socket (a random source port per query, so answers are hard to spoof and ids never collide between
 * clients), or over TCP with the two-byte length prefix (RFC 1035 4.2.2). Resolves to undefined on timeout,
 * refusal or anything unexpected, so the caller tries the next server.
 */
import { createSocket } from 'node:dgram';
import { connect, isIP } from 'node:net';

export interface Upstream {
  host: string;
  port: number;
  family: 4 | 6;
}

/** `192.0.2.53`, `192.0.2.53:5353`, `2001:db8::53`, `[2001:db8::53]:5353`; the port defaults to 53. */
export function parseUpstream(text: string): Upstream {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  const hostPort = /^([^:]+):(\d+)$/.exec(text);
  const [host, portText] = bracketed
    ? [bracketed[1]!, bracketed[2]]
    : hostPort
      ? [hostPort[1]!, hostPort[2]]
      : [text, undefined];
  const family = isIP(host);
  const port = portText === undefined ? 53 : Number(portText);
  if (family === 0 || !Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(`upstream DNS server ${JSON.stringify(text)} is not ip[:port]`);
  return { host, port, family: family as 4 | 6 };
}

const isAnswerTo = (message: Buffer, id: number) =>
  message.length >= 12 && message.readUInt16BE(0) === id && (message[2]! & 0x80) !== 0;

export function exchangeUdp(
  upstream: Upstream,
  query: Buffer,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Buffer | undefined> {
  const id = query.readUInt16BE(0);
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(undefined);
    const socket = createSocket(upstream.family === 6 ? 'udp6' : 'udp4');
    const { finish, isDone } = settleOnce(timeoutMs, signal, () => socket.close(), resolve);
    // A connected socket only receives from the upstream, and learns of an ICMP refusal as an error.
    socket.on('error', () => finish());
    socket.on('message', (message) => {
      if (isAnswerTo(message, id)) finish(message);
    });
    socket.connect(upstream.port, upstream.host, () => {
      if (!isDone()) socket.send(query, (error) => error && finish());
    });
  });
}

export function exchangeTcp(
  upstream: Upstream,
  query: Buffer,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Buffer | undefined> {
  const id = query.readUInt16BE(0);
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(undefined);
    const socket = connect({ host: upstream.host, port: upstream.port });
    socket.setNoDelay(true);
    let received = Buffer.alloc(0);
    const { finish } = settleOnce(timeoutMs, signal, () => socket.destroy(), resolve);
    socket.on('error', () => finish());
    socket.on('close', () => finish());
    socket.on('connect', () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(query.length);
      socket.write(Buffer.concat([length, query]));
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 2) return;
      const size = received.readUInt16BE(0);
      if (received.length < 2 + size) return;
      const answer = received.subarray(2, 2 + size);
      finish(isAnswerTo(answer, id) ? answer : undefined);
    });
  });
}

/**
 * One exchange's end, whichever comes first: the answer, the timeout, the abort or a socket error. The socket
 * is closed and the promise settled exactly once.
 */
function settleOnce(
  timeoutMs: number,
  signal: AbortSignal,
  close: () => void,
  resolve: (answer: Buffer | undefined) => void,
): { finish: (answer?: Buffer) => void; isDone: () => boolean } {
  let done = false;
  const finish = (answer?: Buffer) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    close();
    resolve(answer);
  };
  const onAbort = () => finish();
  const timer = setTimeout(finish, timeoutMs);
  signal.addEventListener('abort', onAbort);
  return { finish, isDone: () => done };
}
