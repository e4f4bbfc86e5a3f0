/**
 * The intercept resolver over real loopback sockets, with a real (small) upstream DNS server behind it, and
 * queried by hand-built packets and by Node's own resolver (c-ares), as real clients would.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { promises as dns } from 'node:dns';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { decode } from 'dns-packet';
import { connect, type Socket } from 'node:net';
import {
  InterceptResolver,
  MAX_TCP_CLIENTS,
  type InterceptResolverOptions,
  type ResolverAnswer,
} from '../../../src/agent/intercept/dns/intercept-resolver.js';
import { AddressPool } from '../../../src/agent/intercept/dns/address-pool.js';
import {
  query,
  rcodeOf,
  startFakeUpstream,
  tcpExchange,
  udpExchange,
  type FakeUpstream,
} from '../../helpers/dns-wire.js';

const NAMES = [
  { pattern: 'wiki.corp', service: 'wiki' },
  { pattern: '*.apps.corp', service: 'apps' },
];

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function upstream(): Promise<FakeUpstream> {
  const server = await startFakeUpstream({ 'other.test': '192.0.2.10' });
  cleanups.push(() => server.stop());
  return server;
}

async function resolver(upstreams: string[], options: Partial<InterceptResolverOptions> = {}) {
  const answers: ResolverAnswer[] = [];
  const r = new InterceptResolver({
    host: '127.0.0.1',
    port: 0,
    upstreams,
    onAnswer: (a) => answers.push(a),
    ...options,
  });
  r.setNames(NAMES);
  const bound = await r.start();
  cleanups.push(() => r.stop());
  expect(bound.tcp.port).toBe(bound.udp.port);
  return { r, port: bound.udp.port, answers };
}

/** A UDP port that reads queries and answers none, standing for an upstream that went quiet. */
async function silentUdp(): Promise<string & { received: () => number }> {
  const socket: UdpSocket = createSocket('udp4');
  let received = 0;
  socket.on('message', () => received++);
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  cleanups.push(() => new Promise<void>((resolve) => socket.close(() => resolve())));
  return Object.assign(`127.0.0.1:${socket.address().port}`, { received: () => received });
}

/** A UDP port nothing listens on: the kernel refuses at once. */
async function closedPort(): Promise<string> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  const port = socket.address().port;
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return `127.0.0.1:${port}`;
}

/** A DNS message with its TCP length prefix. */
function framed(message: Buffer): Buffer {
  const length = Buffer.alloc(2);
  length.writeUInt16BE(message.length);
  return Buffer.concat([length, message]);
}

describe('intercept resolver', () => {
  it('answers A for an intercepted name with its pool address, authoritatively, with the same id', async () => {
    const { r, port, answers } = await resolver([(await upstream()).address]);
    const q = query('Wiki.Corp');
    const raw = (await udpExchange(port, q))!;
    const reply = decode(raw);
    expect(reply.id).toBe(q.readUInt16BE(0));
    expect(rcodeOf(raw)).toBe(0);
    expect(reply.flag_aa).toBe(true);
    expect(reply.questions).toEqual([{ name: 'Wiki.Corp', type: 'A', class: 'IN' }]);
    expect(reply.answers).toEqual([
      expect.objectContaining({ name: 'Wiki.Corp', type: 'A', ttl: 30, data: '100.64.0.3' }),
    ]);
    expect(r.nameFor('100.64.0.3')).toEqual({ name: 'wiki.corp', service: 'wiki' });
    expect(answers[0]).toMatchObject({ outcome: 'intercepted', name: 'wiki.corp', service: 'wiki' });
  });

  it('matches a name under *.apps.corp to that service, with its own stable address', async () => {
    const { r, port } = await resolver([(await upstream()).address]);
    const first = decode((await udpExchange(port, query('x.apps.corp')))!);
    const again = decode((await udpExchange(port, query('X.APPS.CORP.')))!);
    const address = (first.answers![0] as { data: string }).data;
    expect((again.answers![0] as { data: string }).data).toBe(address);
    expect(r.nameFor(address)).toEqual({ name: 'x.apps.corp', service: 'apps' });
    expect(r.nameFor('100.64.9.9')).toBeUndefined();
  });

  it('answers AAAA and other types for an intercepted name with NOERROR and no records', async () => {
    const { port } = await resolver([(await upstream()).address]);
    for (const type of ['AAAA', 'MX', 'TXT'] as const) {
      const raw = (await udpExchange(port, query('wiki.corp', type)))!;
      expect(rcodeOf(raw)).toBe(0);
      expect(decode(raw).answers).toEqual([]);
    }
  });

  it('answers EDNS queries with an OPT record of its own', async () => {
    const { port } = await resolver([(await upstream()).address]);
    const edns = query('wiki.corp', 'A', {
      additionals: [
        {
          type: 'OPT',
          name: '.',
          udpPayloadSize: 4096,
          extendedRcode: 0,
          ednsVersion: 0,
          flags: 0,
          flag_do: false,
          options: [],
        },
      ],
    });
    const reply = decode((await udpExchange(port, edns))!);
    expect(reply.additionals).toEqual([expect.objectContaining({ type: 'OPT', udpPayloadSize: 1232 })]);
  });

  it('relays the upstream answer for any other name byte for byte, same id', async () => {
    const up = await upstream();
    const { port, answers } = await resolver([up.address]);
    const q = query('other.test');
    const direct = await udpExchange(up.port, q);
    const relayed = await udpExchange(port, q);
    expect(relayed).toEqual(direct);
    expect(decode(relayed!).answers![0]).toMatchObject({ data: '192.0.2.10' });
    expect(rcodeOf((await udpExchange(port, query('missing.test')))!)).toBe(3);
    expect(up.received.udp).toBe(3);
    expect(answers.map((a) => a.outcome)).toEqual(['forwarded', 'forwarded']);
  });

  it('tries the next upstream when one refuses or stays silent', async () => {
    const up = await upstream();
    const { port } = await resolver([await closedPort(), await silentUdp(), up.address], {
      upstreamTimeoutMs: 300,
    });
    const reply = decode((await udpExchange(port, query('other.test')))!);
    expect(reply.answers![0]).toMatchObject({ data: '192.0.2.10' });
  });

  it('answers SERVFAIL within the upstream timeouts when no upstream answers', async () => {
    const { port, answers } = await resolver([await silentUdp(), await closedPort()], {
      upstreamTimeoutMs: 300,
    });
    const q = query('other.test');
    const started = performance.now();
    const raw = (await udpExchange(port, q, 10_000))!;
    // two upstreams, 300 ms each at most; generous for a loaded machine but far below a client's patience
    expect(performance.now() - started).toBeLessThan(5000);
    expect(rcodeOf(raw)).toBe(2);
    expect(decode(raw)).toMatchObject({
      id: q.readUInt16BE(0),
      questions: [{ name: 'other.test', type: 'A' }],
    });
    expect(answers.at(-1)).toMatchObject({ outcome: 'upstream-failed', name: 'other.test' });
    // over TCP too (nothing listens on TCP at those ports)
    expect(rcodeOf((await tcpExchange(port, query('other.test'), 10_000))!)).toBe(2);
  });

  it('serves TCP: intercepted names answered, other names forwarded over TCP', async () => {
    const up = await upstream();
    const { port } = await resolver([up.address]);
    const own = decode((await tcpExchange(port, query('wiki.corp')))!);
    expect(own.answers![0]).toMatchObject({ data: '100.64.0.3' });
    const q = query('other.test');
    const relayed = await tcpExchange(port, q);
    expect(relayed).toEqual(await tcpExchange(up.port, q));
    expect(up.received.tcp).toBe(2);
    expect(up.received.udp).toBe(0);
  });

  it('survives garbage: FORMERR for an unreadable query, silence for what has no header or is an answer', async () => {
    const up = await upstream();
    const { port, answers } = await resolver([up.address]);
    // a header claiming one question, then bytes that are not one
    const bad = Buffer.concat([
      Buffer.from([0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]),
      Buffer.from([60, 1]),
    ]);
    const formerr = (await udpExchange(port, bad))!;
    expect(formerr.readUInt16BE(0)).toBe(0x1234);
    expect(rcodeOf(formerr)).toBe(1);
    expect(answers.at(-1)).toMatchObject({ outcome: 'malformed' });
    expect(await udpExchange(port, Buffer.from([1, 2, 3]), 300)).toBeUndefined();
    const answer = Buffer.from(query('wiki.corp'));
    answer[2]! |= 0x80;
    expect(await udpExchange(port, answer, 300)).toBeUndefined();
    for (let i = 0; i < 200; i++) {
      const junk = randomBytes(1 + (i % 600));
      if (junk.length >= 3) junk[2]! &= 0x7f;
      void udpExchange(port, junk, 200);
    }
    // TCP: junk after a valid length, a length no query has, and a cut message
    await tcpExchange(port, randomBytes(40), 300);
    await tcpExchange(port, Buffer.alloc(8000), 300);
    expect(await tcpExchange(port, Buffer.alloc(5), 300)).toBeUndefined();
    // still serving, both ways
    expect(decode((await udpExchange(port, query('wiki.corp')))!).answers).toHaveLength(1);
    expect(decode((await tcpExchange(port, query('other.test')))!).answers).toHaveLength(1);
  });

  it('forwards a name once setNames stops intercepting it, and gives its address back', async () => {
    const up = await upstream();
    const { r, port } = await resolver([up.address]);
    expect(decode((await udpExchange(port, query('wiki.corp')))!).answers).toHaveLength(1);
    expect(r.nameFor('100.64.0.3')).toBeDefined();
    r.setNames([{ pattern: '*.apps.corp', service: 'apps' }]);
    const raw = (await udpExchange(port, query('wiki.corp')))!;
    expect(rcodeOf(raw)).toBe(3);
    expect(up.received.udp).toBe(1);
    expect(r.nameFor('100.64.0.3')).toBeUndefined();
    expect(r.pool.addressOf('wiki.corp')).toBeUndefined();
    expect(r.domains()).toEqual(['~apps.corp']);
  });

  it('answers SERVFAIL at once beyond the cap of forwarded queries in flight', async () => {
    const silent = await silentUdp();
    const { port, answers } = await resolver([silent], { maxForwardsInFlight: 2, upstreamTimeoutMs: 3000 });
    const held = [udpExchange(port, query('a.test'), 10_000), udpExchange(port, query('b.test'), 10_000)];
    // both forwarded and waiting on the silent upstream
    await expect.poll(() => silent.received(), { timeout: 5000 }).toBe(2);
    expect(answers).toEqual([]);
    const started = performance.now();
    const third = (await udpExchange(port, query('c.test'), 10_000))!;
    expect(rcodeOf(third)).toBe(2);
    expect(answers[0]).toMatchObject({ outcome: 'busy', name: 'c.test' });
    // answered before the held ones' upstream timeout, which is what the cap is for
    expect(performance.now() - started).toBeLessThan(2500);
    expect((await Promise.all(held)).map((b) => rcodeOf(b!))).toEqual([2, 2]);
  });

  it('serves an intercepted name while the pool has room, then SERVFAIL', async () => {
    const { port, answers } = await resolver([(await upstream()).address], {
      pool: new AddressPool({ cidr: '10.9.0.0/30', reserved: 0 }),
    });
    expect(decode((await udpExchange(port, query('a.apps.corp')))!).answers).toHaveLength(1);
    expect(decode((await udpExchange(port, query('b.apps.corp')))!).answers).toHaveLength(1);
    expect(rcodeOf((await udpExchange(port, query('c.apps.corp')))!)).toBe(2);
    expect(answers.at(-1)).toMatchObject({ outcome: 'pool-exhausted', name: 'c.apps.corp' });
  });

  it('bounds TCP clients: an idle one is closed, and at most 64 at once', async () => {
    const address = (await upstream()).address;
    const open = (port: number): Promise<Socket> =>
      new Promise((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
        socket.on('error', reject);
      });
    const closed = (socket: Socket) => new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const quick = await resolver([address], { tcpIdleMs: 500 });
    const idle = await open(quick.port);
    const started = performance.now();
    await closed(idle);
    expect(performance.now() - started).toBeGreaterThanOrEqual(400);

    // Idle clients are kept for a minute here, so only the cap can close the one beyond it.
    const { port } = await resolver([address], { tcpIdleMs: 60_000 });
    const held = await Promise.all(Array.from({ length: MAX_TCP_CLIENTS }, () => open(port)));
    cleanups.push(async () => held.forEach((s) => s.destroy()));
    const extra = await open(port);
    const outcome = await Promise.race([
      closed(extra).then(() => 'closed'),
      new Promise((resolve) => setTimeout(() => resolve('still open'), 30_000)),
    ]);
    expect(outcome).toBe('closed');
    expect(extra.bytesRead).toBe(0);
    held[0]!.destroy();
    await expect
      .poll(async () => decode((await tcpExchange(port, query('wiki.corp'), 1000))!).answers?.length, {
        timeout: 10_000,
      })
      .toBe(1);
  });

  it('stops reading from a TCP client that does not read its answers, and goes on once it does', async () => {
    const { port, answers } = await resolver([(await upstream()).address], { tcpIdleMs: 60_000 });
    const total = 300_000;
    const client = await new Promise<Socket>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
      socket.on('error', reject);
    });
    cleanups.push(async () => client.destroy());
    client.pause();
    client.write(Buffer.concat(Array.from({ length: total }, () => framed(query('wiki.corp')))));
    // Answered until what the kernel holds between the two is full, then no more: wait for that to settle.
    let settled = -1;
    await expect
      .poll(
        () => {
          const [before, now] = [settled, answers.length];
          settled = now;
          return now > 0 && now === before;
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe(true);
    expect(answers.length).toBeLessThan(total);
    // Reading again, the client gets every answer.
    let received = 0;
    let bytes = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      bytes = Buffer.concat([bytes, chunk]);
      while (bytes.length >= 2 && bytes.length >= 2 + bytes.readUInt16BE(0)) {
        bytes = bytes.subarray(2 + bytes.readUInt16BE(0));
        received++;
      }
    });
    client.resume();
    await expect.poll(() => received, { timeout: 60_000 }).toBe(total);
  }, 150_000);

  it('drops queries from sources it does not serve', async () => {
    const { port } = await resolver([(await upstream()).address], { acceptFrom: () => false });
    expect(await udpExchange(port, query('wiki.corp'), 300)).toBeUndefined();
    expect(await tcpExchange(port, query('wiki.corp'), 300)).toBeUndefined();
  });

  it("is accepted by Node's own resolver (c-ares) for intercepted and forwarded names", async () => {
    const { port } = await resolver([(await upstream()).address]);
    const client = new dns.Resolver({ timeout: 2000, tries: 2 });
    client.setServers([`127.0.0.1:${port}`]);
    expect(await client.resolve4('wiki.corp')).toEqual(['100.64.0.3']);
    expect(await client.resolve4('deep.x.apps.corp', { ttl: true })).toEqual([
      { address: '100.64.0.4', ttl: 30 },
    ]);
    await expect(client.resolve6('wiki.corp')).rejects.toMatchObject({ code: 'ENODATA' });
    expect(await client.resolve4('other.test')).toEqual(['192.0.2.10']);
    await expect(client.resolve4('missing.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});
