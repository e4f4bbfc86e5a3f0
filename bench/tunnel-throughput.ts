/**
 * Tunnel throughput, one connection echoing, against two baselines measured in the same run and rounds:
 * direct loopback TCP to the same echo service (`tunnel.throughput`), and a bare TLS relay made with Node's
 * own `tls` module on the same hops (`tunnel.throughput.vs-tls-relay`): client → a local listener in the
 * bench process (where the agent's runs) → one TLS connection → a relay process (where the router runs) →
 * plain TCP to the same echo service. The relay has no HTTP/2, no sessions, no checks: what it reaches is
 * the ceiling for a design that carries each connection over TLS through a relay written in Node.
 *
 * Rounds interleave direct, relay and tunnel, and each figure is the median of its rounds, so a noisy
 * neighbour hurts every path alike.
 */
import { join } from 'node:path';
import { connectTcp, startBenchDataPlane, type Tunnel } from './lib/data-plane-world.js';
import { spawnListening } from './lib/children.js';
import { echoMiBps } from './lib/echo-throughput.js';
import { figure, median, type Figure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { startTlsForwarder } from './lib/tls-forwarder.js';

export async function tunnelThroughputFigures(options: BenchOptions): Promise<Figure[]> {
  const world = await startBenchDataPlane();
  const relay = await spawnListening(join(import.meta.dirname, 'lib', 'tls-relay.ts'), [
    String(world.echoPort),
  ]).catch(async (error: unknown) => {
    await world.stop();
    throw error;
  });
  const forwarder = await startTlsForwarder(Number(new URL(relay.url).port));
  try {
    const throughRelay: Tunnel = { open: () => connectTcp(forwarder.port) };
    return await throughputFigures(world.throughAgent, world.direct, throughRelay, options);
  } finally {
    await forwarder.close();
    await relay.stop();
    await world.stop();
  }
}

async function throughputFigures(
  tunnel: Tunnel,
  direct: Tunnel,
  relay: Tunnel,
  options: BenchOptions,
): Promise<Figure[]> {
  const bytes = (options.quick ? 64 : 256) * 1024 * 1024;
  const rounds = options.quick ? 1 : 3;
  const through: number[] = [];
  const bareTcp: number[] = [];
  const bareTls: number[] = [];
  // One unmeasured round warms every path (JIT, TLS session, socket buffers) before anything counts.
  for (const path of [direct, relay, tunnel]) await echoMiBps(() => path.open(), 16 * 1024 * 1024);
  for (let i = 0; i < rounds; i++) {
    bareTcp.push(await echoMiBps(() => direct.open(), bytes));
    bareTls.push(await echoMiBps(() => relay.open(), bytes));
    through.push(await echoMiBps(() => tunnel.open(), bytes));
  }
  const samples = (values: number[]) => values.map((v) => v.toFixed(0)).join(', ');
  const rounding = `${bytes / 1024 / 1024} MiB echoed per round, median of ${rounds} interleaved rounds`;
  const tunnelPath =
    "client → agent's local listener → one HTTP/2 stream over TLS → standalone router → echo service";
  return [
    figure({
      name: 'tunnel.throughput',
      label: 'tunnel echo throughput',
      value: median(through),
      unit: 'MiB/s',
      baseline: median(bareTcp),
      baselineLabel: 'direct loopback TCP to the same echo service',
      target: { ratioMin: 0.5 },
      note: `${rounding}; ${tunnelPath}`,
    }),
    figure({
      name: 'tunnel.throughput.vs-tls-relay',
      label: 'tunnel echo throughput vs a bare TLS relay',
      value: median(through),
      unit: 'MiB/s',
      baseline: median(bareTls),
      baselineLabel: 'bare Node TLS relay on the same hops (local listener → TLS → relay process → echo)',
      target: { ratioMin: 0.8 },
      note:
        `${rounding}; tunnel ${samples(through)} MiB/s, relay ${samples(bareTls)} MiB/s, ` +
        `direct TCP ${samples(bareTcp)} MiB/s; ${tunnelPath}; the relay: the same hops with Node's tls ` +
        'module only (no HTTP/2, no sessions, no checks), same certificate kind and TLS defaults',
    }),
  ];
}
