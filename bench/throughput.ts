/**
 * Controller throughput and p99 latency at 50 connections for `POST /posture-response-bulk` (5 items) and
 * `POST /sessions` (a policy with 5 checks of mixed types, all passing), each against a bare fastify route in
 * its own process answering the same status with a JSON body of the same size: on the embedded SQLite store
 * (`throughput`, the goals), and on PostgreSQL (`throughput-postgres`: one controller against the route, and
 * two controllers sharing the database against one). One connection per simulated
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
import { startPostgres } from '../test/helpers/postgres-server.js';
import { cpuMeter } from './lib/process-cpu.js';

export const CONNECTIONS = 50;

export interface Target {
  key: string;
  label: string;
  path: string;
  body: string;
  status: number;
  /** minimum ratio of the baseline's throughput */
  min: number;
}

/** One load run against one or several controllers, the agents' connections split evenly between them. */
export async function measure(
  urls: readonly string[],
  target: Target,
  tokens: string[] | undefined,
  seconds: number,
): Promise<LoadResult> {
  const share = Math.ceil(CONNECTIONS / urls.length);
  const results = await Promise.all(
    urls.map((url, i) =>
      runLoad({
        url: url + target.path,
        method: 'POST',
        body: target.body,
        perConnection: tokens?.slice(i * share, (i + 1) * share).map((t) => ({ 'zt-session': t })),
        connections: share,
        durationSeconds: seconds,
      }),
    ),
  );
  const failures = results.reduce((n, r) => n + r.failures, 0);
  if (failures > 0)
    throw new Error(
      `${target.key}: ${failures} failed requests ${JSON.stringify(results.map((r) => r.statusCounts))}`,
    );
  return {
    rps: results.reduce((n, r) => n + r.rps, 0),
    p50Ms: Math.max(...results.map((r) => r.p50Ms)),
    p99Ms: Math.max(...results.map((r) => r.p99Ms)),
    failures,
    statusCounts: results[0]!.statusCounts,
    // Concurrent runs each saw the whole process's CPU.
    generatorCpuPercent: Math.max(...results.map((r) => r.generatorCpuPercent)),
  };
}

/** What the load needs: 50 agents signed in with TOTP passed and posture reported, and the two requests. */
export interface Workload {
  tokens: string[];
  targets: Target[];
  sizes: Record<string, number>;
}

export async function prepareWorkload(controllerUrl: string): Promise<Workload> {
  const admin = await adminOf(controllerUrl);
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
  const sessionBody = JSON.stringify({ serviceId, type: 'Dial' });
  const probe = await agents[0]!.api.request('POST', `${CLIENT}/sessions`, sessionBody);
  if (probe.status !== 201)
    throw new Error(
      `the session bench needs a granted session: ${probe.status} ${JSON.stringify(probe.body)}`,
    );
  const bulkProbe = await agents[0]!.api.request('POST', `${CLIENT}/posture-response-bulk`, bulk);
  return {
    tokens: agents.map((a) => a.api.token!),
    targets: [
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
    ],
    sizes: {
      'posture-bulk': JSON.stringify(bulkProbe.body).length,
      sessions: JSON.stringify(probe.body).length,
    },
  };
}

/** CPU seconds and requests summed over the measured rounds, for one side of a comparison. */
interface CpuTally {
  seconds: number;
  requests: number;
}

/** What the CPU-per-request figure counts: server processes, and parents counted with their children. */
interface CpuScope {
  pids: readonly number[];
  parents: readonly number[];
  ours: CpuTally;
  theirs: CpuTally;
}

/** One measured run, its server CPU added to `tally` when there is one. */
async function measureCounted(
  urls: readonly string[],
  target: Target,
  tokens: string[] | undefined,
  seconds: number,
  scope: CpuScope | undefined,
  tally: CpuTally | undefined,
): Promise<LoadResult> {
  const used = scope ? cpuMeter(scope.pids, scope.parents) : undefined;
  const result = await measure(urls, target, tokens, seconds);
  if (used && tally) {
    tally.seconds += used();
    tally.requests += result.rps * seconds;
  }
  return result;
}

/**
 * Throughput and p99 of `subject` (one or several controllers) against `reference`, alternating rounds,
 * medians. The reference is a bare fastify route by default, or other controllers (two instances ÷ one).
 */
async function compare(
  options: BenchOptions,
  pinning: ReturnType<typeof pinLoadGenerator>,
  work: Workload,
  subject: readonly string[],
  naming: {
    prefix: string;
    label: string;
    targets: boolean;
    /** the figures' last part instead of `throughput` (and `p99` after it) */
    figure?: string;
    /** the goal's ratio, instead of the target's own */
    min?: number;
  },
  reference?: { urls: readonly string[]; label: string; work?: Workload },
  cpu?: CpuScope,
): Promise<Figure[]> {
  const figures: Figure[] = [];
  const seconds = options.quick ? 3 : 8;
  const rounds = options.quick ? 1 : 3;
  for (const target of work.targets) {
    const size = work.sizes[target.key]!;
    const baseline = reference ? undefined : await startBaseline(size, target.status);
    try {
      if (baseline) pinning?.pinServer(baseline.pid);
      const theirUrls = reference?.urls ?? [baseline!.url];
      // Another store's controllers have their own agents and checks: their own tokens and bodies.
      const theirWork = reference?.work ?? work;
      const theirTokens = reference ? theirWork.tokens : undefined;
      const theirTarget = theirWork.targets.find((t) => t.key === target.key)!;
      // Warm both (JIT, page caches) before anything counts.
      await measure(subject, target, work.tokens, 2);
      await measure(theirUrls, theirTarget, theirTokens, 2);
      const ours: LoadResult[] = [];
      const theirs: LoadResult[] = [];
      for (let r = 0; r < rounds; r++) {
        theirs.push(await measureCounted(theirUrls, theirTarget, theirTokens, seconds, cpu, cpu?.theirs));
        ours.push(await measureCounted(subject, target, work.tokens, seconds, cpu, cpu?.ours));
      }
      const generatorCpu = (runs: LoadResult[]) =>
        `${median(runs.map((r) => r.generatorCpuPercent)).toFixed(0)} %`;
      const placement = pinning
        ? `${pinning.describe()}; generator CPU ${generatorCpu(ours)} of its core against the subject, ${generatorCpu(theirs)} against the reference`
        : 'unpinned: load generator and server share the cores';
      const note = `${naming.label}; ${CONNECTIONS} connections, ${rounds} x ${seconds} s alternating with the reference, median; response ${size} bytes; ${placement}`;
      const baselineLabel = reference?.label ?? 'bare fastify route, same-sized JSON';
      figures.push(
        figure({
          name: `${naming.prefix}${target.key}.${naming.figure ?? 'throughput'}`,
          label: `${target.label} throughput${naming.prefix ? ` (${naming.label})` : ''}`,
          value: median(ours.map((r) => r.rps)),
          unit: 'req/s',
          baseline: median(theirs.map((r) => r.rps)),
          baselineLabel,
          target: naming.targets ? { ratioMin: naming.min ?? target.min } : null,
          note: naming.targets ? note : `informational (no target); ${note}`,
        }),
        figure({
          name: `${naming.prefix}${target.key}.${naming.figure ? `${naming.figure}.p99` : 'p99'}`,
          label: `${target.label} p99 latency${naming.prefix ? ` (${naming.label})` : ''}`,
          value: median(ours.map((r) => r.p99Ms)),
          unit: 'ms',
          baseline: median(theirs.map((r) => r.p99Ms)),
          baselineLabel,
          note: `informational (no target); ${note}`,
        }),
      );
    } finally {
      await baseline?.stop();
    }
  }
  return figures;
}

/** The goals' figures: the embedded default (SQLite), one controller, against a bare fastify route. */
export async function throughputFigures(options: BenchOptions): Promise<Figure[]> {
  const pinning = pinLoadGenerator();
  process.stdout.write(`(${pinning ? pinning.describe() : 'unpinned'}) `);
  const controller = await startControllerChild();
  try {
    pinning?.pinServer(controller.pid);
    const work = await prepareWorkload(controller.url);
    return await compare(options, pinning, work, [controller.url], {
      prefix: '',
      label: 'SQLite, one controller',
      targets: true,
    });
  } finally {
    await controller.stop();
    pinning?.release();
  }
}

/**
 * The same load on PostgreSQL (a real server, fsync on, on the servers' cores): one controller against the
 * bare route, and two controller instances on the one database against one.
 */
export async function postgresThroughputFigures(options: BenchOptions): Promise<Figure[]> {
  const pinning = pinLoadGenerator();
  process.stdout.write(`(${pinning ? pinning.describe() : 'unpinned'}) `);
  const server = await startPostgres({ durable: true });
  const controllers: Child[] = [];
  try {
    // Backends are the postmaster's children: pinned before any exists, they inherit its cores.
    pinning?.pinServer(server.pid);
    const env = { POSTERN_DATABASE_URL: await server.createDatabase() };
    for (let i = 0; i < 2; i++) {
      const controller = await startControllerChild(undefined, env);
      controllers.push(controller);
      pinning?.pinServer(controller.pid);
    }
    const [a, b] = controllers.map((c) => c.url) as [string, string];
    const work = await prepareWorkload(a);
    // Both controllers and every PostgreSQL process count on both sides: the idle instance's timers and
    // listeners are part of running two, and so is the second instance's work.
    const cpu: CpuScope = {
      pids: controllers.map((c) => c.pid),
      parents: [server.pid],
      ours: { seconds: 0, requests: 0 },
      theirs: { seconds: 0, requests: 0 },
    };
    const figures = [
      ...(await compare(options, pinning, work, [a], {
        prefix: 'postgres.',
        label: 'PostgreSQL, one controller',
        targets: false,
      })),
      ...(await compare(
        options,
        pinning,
        work,
        [a, b],
        { prefix: 'postgres.two-instances.', label: 'PostgreSQL, two controllers', targets: false },
        { urls: [a], label: 'one controller on the same database' },
        cpu,
      )),
    ];
    const perRequest = (t: CpuTally) => (t.seconds / t.requests) * 1e6;
    figures.push(
      figure({
        name: 'postgres.two-instances.cpu-per-request',
        label: 'CPU per request, two controllers on one PostgreSQL',
        value: perRequest(cpu.ours),
        unit: 'µs CPU/req',
        baseline: perRequest(cpu.theirs),
        baselineLabel: 'one controller on the same database',
        target: { ratioMax: 1.1 },
        note:
          `controllers' and PostgreSQL's (postmaster, live and reaped backends) utime+stime from /proc over the ` +
          `measured rounds of both requests, ÷ the 2xx answers; ${cpu.ours.requests.toFixed(0)} requests on two, ` +
          `${cpu.theirs.requests.toFixed(0)} on one; the idle second controller counts on both sides`,
      }),
    );
    return figures;
  } finally {
    for (const c of controllers) await c.stop();
    await server.stop();
    pinning?.release();
  }
}

/**
 * Issue 27's goals: one controller on PostgreSQL against one on SQLite, in the same run on the same machine,
 * each with its own 50 agents and the same requests (`postgres.posture-bulk.vs-sqlite`,
 * `postgres.sessions.vs-sqlite`, each >= 0.5). The two controllers run side by side; rounds alternate, so only
 * the one measured is loaded.
 */
export async function postgresVsSqliteFigures(options: BenchOptions): Promise<Figure[]> {
  const pinning = pinLoadGenerator();
  process.stdout.write(`(${pinning ? pinning.describe() : 'unpinned'}) `);
  const server = await startPostgres({ durable: true });
  const controllers: Child[] = [];
  try {
    pinning?.pinServer(server.pid);
    const onPostgres = await startControllerChild(undefined, {
      POSTERN_DATABASE_URL: await server.createDatabase(),
    });
    controllers.push(onPostgres);
    const onSqlite = await startControllerChild();
    controllers.push(onSqlite);
    for (const c of controllers) pinning?.pinServer(c.pid);
    const pgWork = await prepareWorkload(onPostgres.url);
    const sqliteWork = await prepareWorkload(onSqlite.url);
    return await compare(
      options,
      pinning,
      pgWork,
      [onPostgres.url],
      {
        prefix: 'postgres.',
        label: 'PostgreSQL, one controller',
        targets: true,
        figure: 'vs-sqlite',
        min: 0.5,
      },
      { urls: [onSqlite.url], label: 'the same requests to one controller on SQLite', work: sqliteWork },
    );
  } finally {
    for (const c of controllers) await c.stop();
    await server.stop();
    pinning?.release();
  }
}
