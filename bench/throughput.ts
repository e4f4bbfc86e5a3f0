/**
 * Controller throughput and p99 latency at 50 connections for `POST /posture-response-bulk` (5 items) and
 * `POST /sessions` (a policy with 5 checks of mixed types, all passing), each against a bare fastify route in
 * its own process answering the same status with a JSON body of the same size. One connection per simulated
 * agent (50 identities, each with its own API session and TOTP passed). Runs alternate controller and
 * baseline and each figure is the median of its rounds, so a noisy neighbour hurts both sides alike.
 *
 * On Linux with two or more cores the bench process, which generates the load, is pinned to the last core and
 * the server under test (controller or baseline) to the others (`taskset`), so the ratio compares servers
 * with the same cores rather than servers fighting the load generator; the notes say so, with the CPU the
 * generator itself used (near 100 % would mean the generator, not the server, set the pace).
 */
import {
  adminOf,
  pinLoadGenerator,
  startBaseline,
  startControllerChild,
  type Child,
} from './lib/children.js';
import {
  bulkResponse,
  clientUser,
  created,
  enrollTotp,
  inBatches,
  mixedChecks,
  CLIENT,
} from './lib/api-setup.js';
import { figure, median, type Figure } from './lib/figure.js';
import { runLoad, type LoadResult } from './lib/load.js';
import type { BenchOptions } from './lib/options.js';

const CONNECTIONS = 50;

interface Target {
  key: string;
  label: string;
  path: string;
  body: string;
  status: number;
  /** minimum ratio of the baseline's throughput */
  min: number;
}

async function measure(
  url: string,
  target: Target,
  tokens: string[] | undefined,
  seconds: number,
): Promise<LoadResult> {
  const result = await runLoad({
    url: url + target.path,
    method: 'POST',
    body: target.body,
    perConnection: tokens?.map((t) => ({ 'zt-session': t })),
    connections: CONNECTIONS,
    durationSeconds: seconds,
  });
  if (result.failures > 0)
    throw new Error(
      `${target.key}: ${result.failures} failed requests ${JSON.stringify(result.statusCounts)}`,
    );
  return result;
}

export async function throughputFigures(options: BenchOptions): Promise<Figure[]> {
  const pinning = pinLoadGenerator();
  process.stdout.write(`(${pinning ? pinning.describe() : 'unpinned'}) `);
  const controller = await startControllerChild();
  const baselines: Child[] = [];
  try {
    pinning?.pinServer(controller.pid);
    const admin = await adminOf(controller.url);
    const checks = await mixedChecks(admin, 'tp');
    const serviceId = await created(admin, 'services', { name: 'tp-service' });
    await created(admin, 'service-policies', {
      name: 'tp-policy',
      type: 'Dial',
      semantic: 'AllOf',
      identityRoles: ['#bench-agents'],
      serviceRoles: [`@${serviceId}`],
      postureCheckRoles: Object.values(checks).map((id) => `@${id}`),
    });
    const bulk = JSON.stringify(bulkResponse(checks));
    // 50 agents: each logs in, passes TOTP (enrollment verify) and reports once, so every session is granted.
    const agents = await inBatches(
      Array.from({ length: CONNECTIONS }, (_, i) => i),
      8,
      async (i) => {
        const user = await clientUser(admin, `tp-agent-${i}`, ['bench-agents']);
        await enrollTotp(user.api);
        const sent = await user.api.post(`${CLIENT}/posture-response-bulk`, JSON.parse(bulk));
        if (sent.status !== 201) throw new Error(`posture response failed: ${JSON.stringify(sent.body)}`);
        return user;
      },
    );
    const tokens = agents.map((a) => a.api.token!);
    const sessionBody = JSON.stringify({ serviceId, type: 'Dial' });
    const probe = await agents[0]!.api.request('POST', `${CLIENT}/sessions`, sessionBody);
    if (probe.status !== 201)
      throw new Error(
        `the session bench needs a granted session: ${probe.status} ${JSON.stringify(probe.body)}`,
      );
    const bulkProbe = await agents[0]!.api.request('POST', `${CLIENT}/posture-response-bulk`, bulk);

    const targets: Target[] = [
      {
        key: 'posture-bulk',
        label: 'POST /posture-response-bulk (5 items)',
        path: `${CLIENT}/posture-response-bulk`,
        body: bulk,
        status: 201,
        min: 0.5,
      },
      {
        key: 'sessions',
        label: 'POST /sessions (5 mixed checks)',
        path: `${CLIENT}/sessions`,
        body: sessionBody,
        status: 201,
        min: 0.4,
      },
    ];
    const sizes = {
      'posture-bulk': JSON.stringify(bulkProbe.body).length,
      sessions: JSON.stringify(probe.body).length,
    };
    const figures: Figure[] = [];
    const seconds = options.quick ? 3 : 8;
    const rounds = options.quick ? 1 : 3;
    for (const target of targets) {
      const baseline = await startBaseline(sizes[target.key as keyof typeof sizes], target.status);
      baselines.push(baseline);
      pinning?.pinServer(baseline.pid);
      // Warm both (JIT, SQLite page cache) before anything counts.
      await measure(controller.url, target, tokens, 2);
      await measure(baseline.url, target, undefined, 2);
      const ours: LoadResult[] = [];
      const theirs: LoadResult[] = [];
      for (let r = 0; r < rounds; r++) {
        theirs.push(await measure(baseline.url, target, undefined, seconds));
        ours.push(await measure(controller.url, target, tokens, seconds));
      }
      await baseline.stop();
      const generatorCpu = (runs: LoadResult[]) =>
        `${median(runs.map((r) => r.generatorCpuPercent)).toFixed(0)} %`;
      const placement = pinning
        ? `${pinning.describe()}; generator CPU ${generatorCpu(ours)} of its core against the controller, ${generatorCpu(theirs)} against the baseline`
        : 'unpinned: load generator and server share the cores';
      const note = `${CONNECTIONS} connections, ${rounds} x ${seconds} s alternating with the baseline, median; response ${sizes[target.key as keyof typeof sizes]} bytes; ${placement}`;
      figures.push(
        figure({
          name: `${target.key}.throughput`,
          label: `${target.label} throughput`,
          value: median(ours.map((r) => r.rps)),
          unit: 'req/s',
          baseline: median(theirs.map((r) => r.rps)),
          baselineLabel: 'bare fastify route, same-sized JSON',
          target: { ratioMin: target.min },
          note,
        }),
        figure({
          name: `${target.key}.p99`,
          label: `${target.label} p99 latency`,
          value: median(ours.map((r) => r.p99Ms)),
          unit: 'ms',
          baseline: median(theirs.map((r) => r.p99Ms)),
          baselineLabel: 'bare fastify route, same-sized JSON',
          note: `informational (no target); ${note}`,
        }),
      );
    }
    return figures;
  } finally {
    for (const b of baselines) await b.stop();
    await controller.stop();
    pinning?.release();
  }
}
