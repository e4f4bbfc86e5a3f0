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
  generalFailure: 0x01,
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

/**
 * Parses greeting + request from the start of `buf`; undefined when more bytes are needed. Every length is
 * checked before the byte it covers is read: the client chooses every byte here, including the lengths.
 */
export function parseSocksHandshake(
  buf: Buffer,
):
  | { greeting: number; request?: SocksRequest | { reply: number; length: number } }
  | { error: string }
  | undefined {
  if (buf.length < 2) return undefined;
  if (buf[0] !== 0x05) return { error: 'not SOCKS5' };
  const greeting = 2 + buf[1]!;
  if (buf.length < greeting) return undefined;
  if (!buf.subarray(2, greeting).includes(0x00)) return { error: 'no acceptable method' };
  // The request: VER CMD RSV ATYP, the address, a 2-byte port.
  const r = buf.subarray(greeting);
  if (r.length < 4) return { greeting };
  if (r[0] !== 0x05) return { error: 'bad request version' };
  const address = readAddress(r, r[3]!);
  if (address === 'incomplete') return { greeting };
  if (address === 'unsupported')
    return { greeting, request: { reply: SOCKS_REPLY.addressNotSupported, length: buf.length } };
  const length = greeting + address.end + 2;
  if (r[1] !== 0x01) return { greeting, request: { reply: SOCKS_REPLY.commandNotSupported, length } };
  return { greeting, request: { host: address.host, port: r.readUInt16BE(address.end), length } };
}

/** The request's address (from offset 4) and where it ends, once it and the port after it have arrived. */
function readAddress(r: Buffer, type: number): { host: string; end: number } | 'incomplete' | 'unsupported' {
  const arrived = (end: number) => r.length >= end + 2;
  switch (type) {
    case 0x01:
      return arrived(8) ? { host: [...r.subarray(4, 8)].join('.'), end: 8 } : 'incomplete';
    case 0x03: {
      if (r.length < 5) return 'incomplete';
      const end = 5 + r[4]!;
      return arrived(end) ? { host: r.subarray(5, end).toString('latin1'), end } : 'incomplete';
    }
    case 0x04: {
      if (!arrived(20)) return 'incomplete';
      const parts: string[] = [];
      for (let i = 4; i < 20; i += 2) parts.push(r.readUInt16BE(i).toString(16));
      return { host: parts.join(':'), end: 20 };
    }
    default:
      return 'unsupported';
  }
}

const NO_METHOD = Buffer.from([0x05, 0xff]);
const reply = (code: number) => Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]);

/**
 * `onConnectionError` hears what went wrong with one client's connection beyond bad input (which is simply
 * refused): that connection is closed, the listener and every other connection carry on.
 */
export function createSocksServer(route: SocksRoute, onConnectionError?: (err: Error) => void): Server {
  return createServer((socket) => handle(socket, route, onConnectionError ?? (() => undefined)));
}

function handle(socket: Socket, route: SocksRoute, onConnectionError: (err: Error) => void): void {
  socket.on('error', () => undefined);
  let buf = Buffer.alloc(0);
  let greeted = false;
  const timer = setTimeout(() => socket.destroy(), HANDSHAKE_TIMEOUT_MS);
  socket.once('close', () => clearTimeout(timer));
  // Whatever fails while serving this client (a parser bug, a write on a dead stream) costs this client its
  // connection and nothing more: the listener and every other connection carry on.
  const fail = (err: unknown, stream?: Duplex) => {
    socket.destroy();
    stream?.destroy();
    onConnectionError(err instanceof Error ? err : new Error(String(err)));
  };
  const refuse = (answer: Buffer) => {
    socket.off('data', onData);
    socket.end(answer, () => socket.destroy());
  };
  const connect = (request: SocksRequest, rest: Buffer) => {
    route(request.host, request.port)
      .then(
        (stream) => {
          if (!stream) return refuse(reply(SOCKS_REPLY.notAllowed));
          if (socket.destroyed) return void stream.destroy();
          try {
            socket.write(reply(SOCKS_REPLY.succeeded));
            if (rest.length) stream.write(rest);
            pipeBoth(socket, stream);
          } catch (err) {
            fail(err, stream);
          }
        },
        () => refuse(reply(SOCKS_REPLY.hostUnreachable)),
      )
      .catch(fail);
  };
  const step = (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    const parsed = parseSocksHandshake(buf);
    // A complete handshake may arrive with the first bytes for the service; an incomplete one is bounded.
    const complete = parsed && ('error' in parsed || parsed.request);
    if (!complete && buf.length > MAX_HANDSHAKE_BYTES) return void socket.destroy();
    if (!parsed) return;
    // Before the method was chosen: 0xFF, no acceptable method; after it: a general failure.
    if ('error' in parsed) return refuse(greeted ? reply(SOCKS_REPLY.generalFailure) : NO_METHOD);
    if (!greeted) {
      greeted = true;
      socket.write(Buffer.from([0x05, 0x00]));
    }
    if (!parsed.request) return;
    socket.off('data', onData);
    socket.pause();
    clearTimeout(timer);
    const request = parsed.request;
    if ('reply' in request) return refuse(reply(request.reply));
    connect(request, buf.subarray(request.length));
  };
  function onData(chunk: Buffer): void {
    try {
      step(chunk);
    } catch (err) {
      fail(err);
    }
  }
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
