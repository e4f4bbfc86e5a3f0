/**
 * The SOCKS5 listener against hostile clients, on real sockets: random bytes, truncated and mangled
 * handshakes, and the seven bytes that used to kill the agent (05 01 00 05 01 00 03: a domain-name request
 * cut before its length byte). A bad client loses its own connection; the listener keeps accepting and a
 * tunnel already open keeps carrying bytes. The real agent process gets the same seven bytes in
 * test/integration/agent-hostile-socks.test.ts.
 */
import fc from 'fast-check';
import { connect, type Server, type Socket } from 'node:net';
import { Duplex, PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSocksServer, parseSocksHandshake } from '../../../src/agent/tunnel/socks5-server.js';

const GREETING = Buffer.from([0x05, 0x01, 0x00]);
const SEVEN_BYTES = Buffer.from([0x05, 0x01, 0x00, 0x05, 0x01, 0x00, 0x03]);
const CLOSE_BOUND_MS = 15_000;

const domainRequest = (host: string, port: number) =>
  Buffer.concat([
    Buffer.from([0x05, 0x01, 0x00, 0x03, host.length]),
    Buffer.from(host, 'latin1'),
    Buffer.from([port >> 8, port & 0xff]),
  ]);

/** A whole, valid handshake: any methods list holding "no authentication", any address type. */
const validHandshake = fc
  .tuple(
    fc.uniqueArray(fc.integer({ min: 1, max: 255 }), { maxLength: 20 }),
    fc.oneof(
      fc.uint8Array({ minLength: 4, maxLength: 4 }).map((a) => Buffer.concat([Buffer.from([0x01]), a])),
      fc
        .string({ unit: 'binary-ascii', maxLength: 255 })
        .map((h) => Buffer.concat([Buffer.from([0x03, h.length]), Buffer.from(h, 'latin1')])),
      fc.uint8Array({ minLength: 16, maxLength: 16 }).map((a) => Buffer.concat([Buffer.from([0x04]), a])),
    ),
    fc.integer({ min: 0, max: 65535 }),
  )
  .map(([methods, address, port]) =>
    Buffer.concat([
      Buffer.from([0x05, methods.length + 1, ...methods, 0x00]),
      Buffer.from([0x05, 0x01, 0x00]),
      address,
      Buffer.from([port >> 8, port & 0xff]),
    ]),
  );

/** What a hostile client sends: noise, a valid handshake cut anywhere, or one with a byte changed. */
const hostileBytes = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 700 }).map((a) => Buffer.from(a)),
  validHandshake.chain((h) => fc.integer({ min: 1, max: h.length - 1 }).map((n) => h.subarray(0, n))),
  validHandshake.chain((h) =>
    fc
      .tuple(fc.integer({ min: 0, max: h.length - 1 }), fc.integer({ min: 0, max: 255 }))
      .map(([at, byte]) => Buffer.from(h).fill(byte, at, at + 1)),
  ),
  fc.constant(SEVEN_BYTES),
);

/** Resolves once the listener has closed `socket` (reading what it answered, so its end is seen). */
function waitClosed(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    if (socket.destroyed) return resolve();
    socket.resume();
    const timer = setTimeout(
      () => reject(new Error(`the listener kept a bad connection open ${CLOSE_BOUND_MS} ms`)),
      CLOSE_BOUND_MS,
    );
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function read(socket: Socket, bytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let got = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      if (got.length < bytes) return;
      socket.off('data', onData);
      resolve(got);
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`closed after ${got.length} of ${bytes} bytes`)));
  });
}

describe('SOCKS5 listener under hostile input', () => {
  let server: Server;
  let port: number;
  const faults: Error[] = [];
  const clients = new Set<Socket>();

  beforeAll(async () => {
    // app.internal:80 is an in-process echo; every other name is refused.
    server = createSocksServer(
      async (host, p) => (host === 'app.internal' && p === 80 ? new PassThrough() : null),
      (err) => faults.push(err),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => {
    for (const socket of clients) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function client(): Promise<Socket> {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    clients.add(socket);
    socket.once('close', () => clients.delete(socket));
    await new Promise((resolve) => socket.once('connect', resolve));
    return socket;
  }

  /** A working tunnel through the listener: method chosen, request granted. */
  async function tunnel(): Promise<Socket> {
    const socket = await client();
    socket.write(Buffer.concat([GREETING, domainRequest('app.internal', 80)]));
    const answer = await read(socket, 12);
    expect([...answer.subarray(0, 4)]).toEqual([0x05, 0x00, 0x05, 0x00]);
    return socket;
  }

  async function echoes(socket: Socket, text: string): Promise<void> {
    socket.write(text);
    expect((await read(socket, text.length)).toString()).toBe(text);
  }

  it('takes the seven bytes 05 01 00 05 01 00 03 as a request still arriving, and the tunnel beside it carries on', async () => {
    const open = await tunnel();
    const bad = await client();
    bad.write(SEVEN_BYTES);
    // The greeting was valid and is answered; the request waits for its length byte, bounded in time.
    expect([...(await read(bad, 2))]).toEqual([0x05, 0x00]);
    await echoes(open, 'still carried');
    bad.end();
    await waitClosed(bad);
    await echoes(open, 'after the bad client left');
    await echoes(await tunnel(), 'a new tunnel');
    open.destroy();
    expect(faults).toEqual([]);
  });

  it('never throws on any bytes, and a request it reads spans a whole number of the bytes given', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 700 }).map((a) => Buffer.from(a)),
          // noise rarely gets past the greeting: these are a greeting, a request head and a short tail
          fc
            .tuple(
              fc.oneof(fc.constant(0x01), fc.integer({ min: 0, max: 255 })),
              fc.constantFrom(0x01, 0x03, 0x04, 0x00, 0xff),
              fc.uint8Array({ maxLength: 24 }),
            )
            .map(([command, type, tail]) =>
              Buffer.concat([GREETING, Buffer.from([0x05, command, 0x00, type]), tail]),
            ),
        ),
        (buf) => {
          const parsed = parseSocksHandshake(buf);
          if (parsed && 'greeting' in parsed && parsed.request) {
            expect(Number.isInteger(parsed.request.length)).toBe(true);
            expect(parsed.request.length).toBeLessThanOrEqual(buf.length);
          }
        },
      ),
      { numRuns: 5_000 },
    );
  });

  it('asks for more bytes at every cut of a valid handshake, and parses it whole', () => {
    fc.assert(
      fc.property(validHandshake, (handshake) => {
        for (let n = 0; n < handshake.length; n++) {
          const parsed = parseSocksHandshake(handshake.subarray(0, n));
          expect(parsed === undefined || ('greeting' in parsed && !parsed.request)).toBe(true);
        }
        const whole = parseSocksHandshake(handshake);
        expect(whole).toMatchObject({ request: { length: handshake.length } });
      }),
      { numRuns: 1_000 },
    );
  });

  it('closes a connection sending noise or a cut or mangled handshake, and only that one', async () => {
    const open = await tunnel();
    await fc.assert(
      fc.asyncProperty(hostileBytes, async (bytes) => {
        const bad = await client();
        bad.write(bytes);
        bad.end();
        await waitClosed(bad);
      }),
      { numRuns: 150 },
    );
    await echoes(open, 'carried through 150 hostile clients');
    await echoes(await tunnel(), 'and a new tunnel opens');
    open.destroy();
    expect(faults).toEqual([]);
  }, 120_000);

  it('a fault while connecting one client (its stream throws) closes that client only and is reported', async () => {
    const reported: Error[] = [];
    class Broken extends Duplex {
      override _read() {}
      override write(): boolean {
        throw new Error('this stream cannot be written');
      }
    }
    const broken = createSocksServer(
      async () => new Broken(),
      (err) => reported.push(err),
    );
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    const socket = connect((broken.address() as { port: number }).port, '127.0.0.1');
    socket.on('error', () => undefined);
    // The first bytes for the service arrive with the request, so they are written to the stream at once.
    socket.write(Buffer.concat([GREETING, domainRequest('app.internal', 80), Buffer.from('early')]));
    await waitClosed(socket);
    expect(reported.map((e) => e.message)).toEqual(['this stream cannot be written']);
    const open = await tunnel();
    await echoes(open, 'the other listener is untouched');
    open.destroy();
    await new Promise<void>((resolve) => broken.close(() => resolve()));
  });
});
