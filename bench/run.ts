/**
 * `npm run bench -- [--quick] [--only NAME]`: Postern's benchmarks (targets in docs/PERFORMANCE.md). Each bench
 * measures its figures against a baseline taken in the same run on the same machine, prints a table and
 * writes `bench/results.json` (`--only` updates just its figures there; `--quick` writes
 * `bench/results.quick.json`). Loopback only; servers under load run in child processes.
 *
 * A bench that fails is reported and the others still run; the exit code is 1 if any failed (a missed
 * target is a finding, not a failure, and exits 0). A bench whose prerequisite the machine lacks (root,
 * network namespaces) says so and is skipped, not failed.
 */
import { join } from 'node:path';
import { agentCollectFigures } from './agent-collect.js';
import { auditDeliveryFigures } from './audit-delivery.js';
import { agentCycleFigures } from './agent-cycle.js';
import { agentIdleFigures } from './agent-idle.js';
import { consoleIdentitiesFigures } from './console-identities.js';
import { controllerMemoryFigures } from './controller-memory.js';
import { dataPlaneFigures } from './data-plane.js';
import { impactPreviewFigures } from './impact-preview.js';
import { interceptDnsFigures } from './intercept-dns.js';
import { interceptThroughputFigures } from './intercept-throughput.js';
import type { Figure } from './lib/figure.js';
import { parseBenchArgs, type BenchOptions } from './lib/options.js';
import { describeMachine, table, writeResults } from './lib/report.js';
import { mfaTimeoutFigures } from './mfa-timeout.js';
import { BenchSkipped } from './lib/skipped.js';
import { servicesScalingFigures } from './services-scaling.js';
import { soakFigures } from './soak.js';
import { tunnelThroughputFigures } from './tunnel-throughput.js';
import { postgresThroughputFigures, postgresVsSqliteFigures, throughputFigures } from './throughput.js';

const BENCHES: Record<string, (options: BenchOptions) => Promise<Figure[]>> = {
  throughput: throughputFigures,
  'throughput-postgres': postgresThroughputFigures,
  'postgres-vs-sqlite': postgresVsSqliteFigures,
  services: servicesScalingFigures,
  'mfa-timeout': mfaTimeoutFigures,
  'agent-cycle': agentCycleFigures,
  'agent-collect': agentCollectFigures,
  'agent-idle': agentIdleFigures,
  'controller-memory': controllerMemoryFigures,
  'data-plane': dataPlaneFigures,
  'tunnel-throughput': tunnelThroughputFigures,
  'console-identities': consoleIdentitiesFigures,
  'impact-preview': impactPreviewFigures,
  'intercept-dns': interceptDnsFigures,
  'intercept-throughput': interceptThroughputFigures,
  'audit-delivery': auditDeliveryFigures,
  soak: soakFigures,
};

/** Benches run only when named in --only: the soak takes 10 minutes and kills processes on purpose. */
const ONLY_WHEN_NAMED = new Set(['soak']);

async function main(): Promise<number> {
  const options = parseBenchArgs(process.argv.slice(2), Object.keys(BENCHES));
  const machine = describeMachine();
  const started = performance.now();
  console.log(
    `postern bench (${options.quick ? 'quick' : 'full'}) on ${machine.cpus} x ${machine.cpuModel}, ${machine.memoryMiB} MiB, ` +
      `node ${machine.node}, load average ${machine.loadAverage}`,
  );
  const figures: Figure[] = [];
  const failed: string[] = [];
  for (const [name, run] of Object.entries(BENCHES)) {
    if (options.only.length > 0 ? !options.only.includes(name) : ONLY_WHEN_NAMED.has(name)) continue;
    const benchStarted = performance.now();
    process.stdout.write(`- ${name} ... `);
    try {
      const result = await run(options);
      figures.push(...result);
      console.log(`done in ${((performance.now() - benchStarted) / 1000).toFixed(0)} s`);
    } catch (error) {
      if (error instanceof BenchSkipped) {
        console.log(`skipped: ${error.message}`);
        continue;
      }
      failed.push(name);
      console.log(`FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  }
  const durationSeconds = Math.round((performance.now() - started) / 1000);
  console.log(`\n${table(figures)}\n`);
  const missed = figures.filter((f) => f.met === false).map((f) => f.name);
  console.log(
    `${figures.length} figures in ${durationSeconds} s; targets missed: ${missed.length ? missed.join(', ') : 'none'}`,
  );
  if (failed.length) console.log(`benches that failed: ${failed.join(', ')}`);
  // A quick run is a smoke test: it never overwrites the published figures.
  const path = join(import.meta.dirname, options.quick ? 'results.quick.json' : 'results.json');
  writeResults(path, {
    machine,
    mode: options.quick ? 'quick' : 'full',
    durationSeconds,
    figures: Object.fromEntries(figures.map((f) => [f.name, f])),
  });
  console.log(`written to ${path}`);
  return failed.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`postern bench: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
