/**
 * A SOCKS5 listener on loopback (RFC 1928: no authentication, CONNECT only) that hands each request's
 * `host:port` to a router function; the agent's only answer is a tunnel to a Postern service or a refusal,
 * never a direct connection. Written here because no maintained SOCKS5 *server* package exists on npm; the
 * protocol subset is small. The handshake is bounded in time and size so a bad client cannot stall it.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

const HANDSHAKE_TIMEOUT_MS = 10_000;
const MAX_HANDSHAKE_BYTES = 600;

export const SOCKS_REPLY = {
  succeeded: 0x00,
  notAllowed: 0x02,
  hostUnreachable: 0x04,
  commandNotSupported: 0x07,
  addressNotSupported: 0x08,
} as const;

export type SocksRoute = (host: string, port: number) => Promise<Duplex | null>;

export interface SocksRequest {
  host: string;
  port: number;
  /** bytes consumed by the greeting and the request */
  length: number;
}

/** Parses greeting + request from the start of `buf`; undefined when more bytes are needed. */
export function parseSocksHandshake(
  buf: Buffer,
):
  | { greeting: number; request?: SocksRequest | { reply: number; length: number } }
  | { error: string }
  | undefined {
  if (buf.length < 2) return undefined;
  if (buf[0] !== 0x05) return { error: 'not SOCKS5' };
  const methods = buf[1]!;
  const greeting = 2 + methods;
  if (buf.length < greeting) return undefined;
  if (!buf.subarray(2, greeting).includes(0x00)) return { error: 'no acceptable method' };
  if (buf.length < greeting + 4) return { greeting };
  const r = buf.subarray(greeting);
  if (r[0] !== 0x05) return { error: 'bad request version' };
  const command = r[1]!;
  const type = r[3]!;
  let host: string;
  let at: number;
  if (type === 0x01) {
    if (r.length < 10) return { greeting };
    host = [...r.subarray(4, 8)].join('.');
    at = 8;
  } else if (type === 0x03) {
    const len = r[4]!;
    if (r.length < 5 + len + 2) return { greeting };
    host = r.subarray(5, 5 + len).toString('latin1');
    at = 5 + len;
  } else if (type === 0x04) {
    if (r.length < 22) return { greeting };
    const parts: string[] = [];
    for (let i = 0; i < 16; i += 2) parts.push(r.readUInt16BE(4 + i).toString(16));
    host = parts.join(':');
    at = 20;
  } else return { greeting, request: { reply: SOCKS_REPLY.addressNotSupported, length: buf.length } };
  const length = greeting + at + 2;
  if (command !== 0x01) return { greeting, request: { reply: SOCKS_REPLY.commandNotSupported, length } };
  return { greeting, request: { host, port: r.readUInt16BE(at), length } };
}

const reply = (code: number) => Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]);

export function createSocksServer(route: SocksRoute): Server {
  return createServer((socket) => handle(socket, route));
}

function handle(socket: Socket, route: SocksRoute): void {
  socket.on('error', () => undefined);
  let buf = Buffer.alloc(0);
  let greeted = false;
  const timer = setTimeout(() => socket.destroy(), HANDSHAKE_TIMEOUT_MS);
  const onData = (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    if (buf.length > MAX_HANDSHAKE_BYTES) return void socket.destroy();
    const parsed = parseSocksHandshake(buf);
    if (!parsed) return;
    if ('error' in parsed) {
      clearTimeout(timer);
      // 0xFF: no acceptable method; anything else malformed just ends.
      return void socket.end(Buffer.from([0x05, 0xff]));
    }
    if (!greeted) {
      greeted = true;
      socket.write(Buffer.from([0x05, 0x00]));
    }
    if (!parsed.request) return;
    socket.off('data', onData);
    socket.pause();
    clearTimeout(timer);
    const request = parsed.request;
    const rest = buf.subarray(request.length);
    if ('reply' in request) return void socket.end(reply(request.reply));
    void route(request.host, request.port).then(
      (stream) => {
        if (!stream) return void socket.end(reply(SOCKS_REPLY.notAllowed));
        if (socket.destroyed) return void stream.destroy();
        socket.write(reply(SOCKS_REPLY.succeeded));
        if (rest.length) stream.write(rest);
        pipeBoth(socket, stream);
      },
      () => socket.end(reply(SOCKS_REPLY.hostUnreachable)),
    );
  };
  socket.on('data', onData);
}

/**
 * Pipes both ways with backpressure. A remote that was reset (a revocation: HTTP/2 RST_STREAM with a
 * non-zero code) or failed drops the local connection at once; a remote that finished normally has already
 * ended it through the pipe, with every byte delivered. The local side closing releases the remote.
 */
export function pipeBoth(local: Socket, remote: Duplex, onReset?: () => void): void {
  local.pipe(remote);
  remote.pipe(local);
  remote.on('error', () => local.destroy());
  remote.on('close', () => {
    const code = (remote as Duplex & { rstCode?: number }).rstCode;
    if (code) {
      onReset?.();
      local.destroy();
    } else local.end();
  });
  local.on('close', () => remote.destroy());
  local.resume();
}
