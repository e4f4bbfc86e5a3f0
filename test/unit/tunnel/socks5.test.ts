/** The SOCKS5 listener with real sockets: what it answers, and that it never connects anywhere by itself. */
import { connect, type Server, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSocksServer, parseSocksHandshake } from '../../../src/agent/tunnel/socks5-server.js';

describe('SOCKS5 listener', () => {
  let server: Server;
  let port: number;
  const asked: string[] = [];

  beforeAll(async () => {
    // Routes only app.internal:80, to an in-process echo; everything else is refused.
    server = createSocksServer(async (host, p) => {
      asked.push(`${host}:${p}`);
      if (host !== 'app.internal' || p !== 80) return null;
      const echo = new PassThrough();
      return echo;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function exchange(bytes: Buffer[], expectBytes: number): Promise<Buffer> {
    const socket: Socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let got = Buffer.alloc(0);
    const done = new Promise<Buffer>((resolve) => {
      socket.on('data', (c: Buffer) => {
        got = Buffer.concat([got, c]);
        if (got.length >= expectBytes) resolve(got);
      });
      socket.on('close', () => resolve(got));
    });
    for (const b of bytes) {
      socket.write(b);
      await new Promise((r) => setTimeout(r, 10)); // split writes: the parser must wait for the rest
    }
    const result = await done;
    socket.destroy();
    return result;
  }

  const domainRequest = (host: string, p: number, command = 0x01) =>
    Buffer.concat([
      Buffer.from([0x05, command, 0x00, 0x03, host.length]),
      Buffer.from(host),
      Buffer.from([p >> 8, p & 0xff]),
    ]);

  it('connects a domain-name CONNECT to the routed service and carries bytes', async () => {
    const got = await exchange(
      [Buffer.from([0x05, 0x01, 0x00]), domainRequest('app.internal', 80), Buffer.from('ping')],
      2 + 10 + 4,
    );
    expect([...got.subarray(0, 2)]).toEqual([0x05, 0x00]);
    // After the 2-byte method choice: VER, REP (0x00 succeeded), RSV, ATYP, address, port.
    expect([...got.subarray(2, 4)]).toEqual([0x05, 0x00]);
    expect(got.subarray(12).toString()).toBe('ping');
  });

  it('refuses a name no service intercepts with 0x02 (not allowed by ruleset)', async () => {
    const got = await exchange([Buffer.from([0x05, 0x01, 0x00]), domainRequest('example.com', 443)], 12);
    expect(got[3]).toBe(0x02);
    expect(asked).toContain('example.com:443');
  });

  it('parses IPv4 and IPv6 requests', () => {
    const v4 = parseSocksHandshake(
      Buffer.from([0x05, 0x01, 0x00, 0x05, 0x01, 0x00, 0x01, 10, 0, 0, 7, 0x01, 0xbb]),
    );
    expect(v4).toMatchObject({ request: { host: '10.0.0.7', port: 443 } });
    const v6 = Buffer.alloc(3 + 4 + 16 + 2);
    v6.set([0x05, 0x01, 0x00, 0x05, 0x01, 0x00, 0x04]);
    v6.writeUInt16BE(0xfd00, 7);
    v6.writeUInt16BE(1, 21);
    v6.writeUInt16BE(8443, 23);
    expect(parseSocksHandshake(v6)).toMatchObject({ request: { host: 'fd00:0:0:0:0:0:0:1', port: 8443 } });
  });

  it('answers an unsupported command (BIND) with 0x07 and a non-SOCKS5 greeting with nothing usable', async () => {
    const bind = await exchange(
      [Buffer.from([0x05, 0x01, 0x00]), domainRequest('app.internal', 80, 0x02)],
      12,
    );
    expect(bind[3]).toBe(0x07);
    const socks4 = await exchange([Buffer.from([0x04, 0x01, 0x00, 0x50, 127, 0, 0, 1, 0])], 2);
    expect([...socks4]).toEqual([0x05, 0xff]);
  });
});
