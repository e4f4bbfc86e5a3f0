/**
 * Intercept mode's resolver: how fast it answers an intercepted name (p99), and what it adds to a name it
 * forwards (p50). The resolver and a small upstream DNS server each run in their own process; this bench is
 * the client, one query at a time over UDP, and every kind of query is interleaved with the others so the
 * machine's noise falls on all alike.
 *
 * Baselines, in the same run: the upstream answering directly (a bare dns-packet server answering from a
 * table, the cheapest DNS answer this machine gives), for the intercepted p99; and the same query sent
 * straight to that upstream, for the forwarding cost (value = p50 via the resolver − p50 direct).
 */
import { createSocket, type Socket } from 'node:dgram';
import { join } from 'node:path';
import { query } from '../test/helpers/dns-wire.js';
import { spawnListening } from './lib/children.js';
import { figure, percentile, type Figure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';

function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** Milliseconds from sending `message` to `port` until the answer with its id arrives. */
function timedExchange(socket: Socket, port: number, message: Buffer): Promise<number> {
  const id = message.readUInt16BE(0);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.off('message', onMessage);
      reject(new Error(`no DNS answer from port ${port} within 5 s`));
    }, 5000);
    const onMessage = (reply: Buffer) => {
      if (reply.readUInt16BE(0) !== id) return;
      const ms = performance.now() - started;
      clearTimeout(timer);
      socket.off('message', onMessage);
      resolve(ms);
    };
    socket.on('message', onMessage);
    const started = performance.now();
    socket.send(message, port, '127.0.0.1');
  });
}

export async function interceptDnsFigures(options: BenchOptions): Promise<Figure[]> {
  const samples = options.quick ? 500 : 3000;
  const upstream = await spawnListening(join(import.meta.dirname, 'lib', 'dns-upstream-server.ts'));
  const children = [upstream];
  const socket = createSocket('udp4');
  try {
    const resolverChild = await spawnListening(join(import.meta.dirname, 'lib', 'dns-resolver-server.ts'), [
      `127.0.0.1:${portOf(upstream.url)}`,
    ]);
    children.push(resolverChild);
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
    const resolverPort = portOf(resolverChild.url);
    const upstreamPort = portOf(upstream.url);
    const kinds = {
      intercepted: () => timedExchange(socket, resolverPort, query('wiki.corp')),
      forwarded: () => timedExchange(socket, resolverPort, query('other.test')),
      direct: () => timedExchange(socket, upstreamPort, query('other.test')),
    };
    const times: Record<keyof typeof kinds, number[]> = { intercepted: [], forwarded: [], direct: [] };
    // warm-up: JIT, the pool's first allocation, the upstream's sockets
    for (let i = 0; i < 200; i++) for (const run of Object.values(kinds)) await run();
    for (let i = 0; i < samples; i++)
      for (const [kind, run] of Object.entries(kinds)) times[kind as keyof typeof kinds].push(await run());
    const p = (kind: keyof typeof kinds, at: number) => percentile(times[kind], at);
    const note = `${samples} queries of each kind over UDP on loopback, one at a time, interleaved`;
    return [
      figure({
        name: 'intercept.dns.intercepted-p99-ms',
        label: 'DNS answer for an intercepted name, p99',
        value: p('intercepted', 99),
        unit: 'ms',
        baseline: p('direct', 99),
        baselineLabel: 'p99 of a bare dns-packet server answering directly',
        target: { valueMax: 2 },
        note: `${note}; p50 ${p('intercepted', 50).toFixed(3)} ms`,
      }),
      figure({
        name: 'intercept.dns.forward-added-p50-ms',
        label: 'latency the resolver adds to a forwarded name, p50',
        value: p('forwarded', 50) - p('direct', 50),
        unit: 'ms',
        baseline: p('direct', 50),
        baselineLabel: 'p50 of the same query straight to the upstream',
        target: { valueMax: 1 },
        note: `${note}; via the resolver p50 ${p('forwarded', 50).toFixed(3)} ms, p99 ${p('forwarded', 99).toFixed(3)} ms`,
      }),
    ];
  } finally {
    socket.close();
    await Promise.all(children.map((child) => child.stop()));
  }
}
