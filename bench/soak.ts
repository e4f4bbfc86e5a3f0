/**
 * `npm run bench -- --only soak` (never part of a plain `npm run bench`, nor of `npm test`): two controller
 * instances (real processes as users run them, each with its embedded router) on one PostgreSQL, under load
 * at half their measured capacity from simulated devices (posture reports and session requests, see
 * lib/soak-devices.ts), instance B killed with SIGKILL and restarted every minute, for 10 minutes
 * (POSTERN_SOAK_SECONDS shortens it; --quick alone makes it 3 minutes). It checks, during the run and at its
 * end:
 *
 * - no lost posture report: every 2xx-acknowledged report is in the database (read every few seconds and
 *   after each restart: each device's stored report is the last one it had acknowledged, or a later one);
 * - no session granted against policy: devices failing a check are refused at both instances, a device that
 *   just reported failing at one instance is refused at the other, devices whose warn deadline passed are
 *   refused; and a trigger the soak adds on edge_sessions logs every session ever inserted, which must hold
 *   none for a refused device;
 * - every deadline kept: each minute a group of devices holds sessions through B under a warn check whose
 *   deadline falls 3 s after B is killed; their sessions must go within the takeover bound of the deadline,
 *   not before it;
 * - memory flat: the surviving instance's (A's) resident memory grows under 5 % after warm-up;
 * - errors only on the killed instance's connections: none at A, none at B outside its outages.
 */
import { rmSync } from 'node:fs';
import pg from 'pg';
import { TAKEOVER_INTERVAL_MS } from '../controller/access/engine/deadline-takeover.js';
import { spawnController, type ControllerProcess } from '../test/helpers/controller.js';
import { freePort } from '../test/helpers/markdown-walkthrough.js';
import { startPostgres } from '../test/helpers/postgres-server.js';
import { createUser } from '../test/helpers/api.js';
import { CLIENT, created, inBatches } from './lib/api-setup.js';
import { ADMIN_PASSWORD, CHILD_START_TIMEOUT_MS, adminOf, tempDir } from './lib/children.js';
import { figure, median, percentile, type Figure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { rssMiB, sleep } from './lib/proc-stats.js';
import {
  DeviceDriver,
  GOOD_MAC,
  signIn,
  storedSequence,
  type Device,
  type DeviceKind,
  type InstanceName,
  type Outcome,
} from './lib/soak-devices.js';

const KILL_EVERY_MS = 60_000;
/** A warn deadline falls this long after B is killed: B (its owner) is still down then. */
const DEADLINE_AFTER_KILL_MS = 3_000;
const RSS_GROWTH_MAX_PERCENT = 5;
const DEVICES: Record<DeviceKind, number> = { passing: 40, denied: 10, flapping: 10 };
const WARN_DEVICES_PER_GROUP = 4;
const CHECK_EVERY_MS = 5_000;

/** A line on stderr while the bench runs (its table comes at the end). */
const progress = (line: string) => process.stderr.write(`\n  soak: ${line}`);

interface Instance {
  name: InstanceName;
  port: number;
  dataDir: string;
  proc?: ControllerProcess;
}

interface Tally {
  answered: number;
  reports: number;
  errors: number;
  errorsOutsideOutages: number;
  examples: string[];
  wronglyRefused: number;
  latenciesMs: number[];
}

const emptyTally = (): Tally => ({
  answered: 0,
  reports: 0,
  errors: 0,
  errorsOutsideOutages: 0,
  examples: [],
  wronglyRefused: 0,
  latenciesMs: [],
});

export async function soakFigures(options: BenchOptions): Promise<Figure[]> {
  const seconds = Number(process.env.POSTERN_SOAK_SECONDS) || (options.quick ? 180 : 600);
  const kills = Math.max(1, Math.ceil((seconds * 1000) / KILL_EVERY_MS) - 1);
  const server = await startPostgres({ durable: true });
  const database = await server.createDatabase();
  const env = { POSTERN_DATABASE_URL: database, POSTERN_ADMIN_PASSWORD: ADMIN_PASSWORD };
  const instances: Record<InstanceName, Instance> = {
    A: { name: 'A', port: await freePort(), dataDir: tempDir('postern-soak-a-') },
    B: { name: 'B', port: await freePort(), dataDir: tempDir('postern-soak-b-') },
  };
  const url = (i: Instance) => `http://127.0.0.1:${i.port}`;
  const start = async (i: Instance) => {
    i.proc = await spawnController(
      ['--data-dir', i.dataDir, '--port', String(i.port), '--host', '127.0.0.1', '--log-level', 'warn'],
      env,
      [],
      CHILD_START_TIMEOUT_MS,
    );
  };
  const db = new pg.Pool({ connectionString: database, max: 2 });
  try {
    await start(instances.A);
    await start(instances.B);
    await installSessionLog(db);
    const admin = await adminOf(url(instances.A));

    // The catalogue: one service behind an OS and a MAC check.
    const osCheckId = await created(admin, 'posture-checks', {
      name: 'soak-os',
      typeId: 'OS',
      operatingSystems: [{ type: 'Linux', versions: ['>=5.0.0'] }],
    });
    const macCheckId = await created(admin, 'posture-checks', {
      name: 'soak-mac',
      typeId: 'MAC',
      macAddresses: [GOOD_MAC],
    });
    const serviceId = await created(admin, 'services', { name: 'soak-service' });
    await created(admin, 'service-policies', {
      name: 'soak-policy',
      type: 'Dial',
      semantic: 'AllOf',
      identityRoles: ['#soak-device'],
      serviceRoles: [`@${serviceId}`],
      postureCheckRoles: [`@${osCheckId}`, `@${macCheckId}`],
    });

    // The devices, half at each instance.
    const specs = (Object.entries(DEVICES) as [DeviceKind, number][]).flatMap(([kind, n]) =>
      Array.from({ length: n }, () => kind),
    );
    const devices: Device[] = await inBatches(specs, 4, async (kind, index) => {
      const home: InstanceName = index % 2 === 0 ? 'A' : 'B';
      const name = `soak-${kind}-${index}`;
      const identityId = await createUser(admin, name, 'soak-password', { roleAttributes: ['soak-device'] });
      const { token } = await signIn(url(instances[home]), name);
      return {
        index,
        kind,
        identityId,
        token,
        home,
        step: 0,
        sent: 0,
        acked: 0,
        passing: undefined,
        busy: false,
      };
    });
    const warnGroups = await inBatches(
      Array.from({ length: kills }, (_, k) => k + 1),
      1,
      async (k) => {
        const tag = `soak-warn-${k}`;
        const members = await inBatches(
          Array.from({ length: WARN_DEVICES_PER_GROUP }, (_, i) => i),
          4,
          async (i) => {
            const name = `${tag}-${i}`;
            const identityId = await createUser(admin, name, 'soak-password', { roleAttributes: [tag] });
            return { identityId, ...(await signIn(url(instances.B), name)) };
          },
        );
        const warnServiceId = await created(admin, 'services', { name: `${tag}-service` });
        return { k, tag, members, serviceId: warnServiceId, sessionIds: [] as string[], deadline: 0 };
      },
    );

    // Outcomes, tallied per instance; B's outages, for telling the kill's errors from others.
    const outages: { from: number; to: number }[] = [];
    const tally: Record<InstanceName, Tally> = {
      A: emptyTally(),
      B: emptyTally(),
    };
    const violations: string[] = [];
    let counting = false;
    let sessionChecks = 0;
    const driver = new DeviceDriver(
      () => ({ A: url(instances.A), B: url(instances.B) }),
      { osCheckId, macCheckId, serviceId },
      (o: Outcome) => {
        if (!counting) return;
        const t = tally[o.instance];
        if (o.violation) violations.push(o.violation);
        if (o.wronglyRefused) t.wronglyRefused++;
        if (!o.report && !o.error) sessionChecks++;
        if (o.error) {
          t.errors++;
          // An outage runs from the kill until the restarted instance listens, plus a second for requests
          // already on their way.
          const explained = o.instance === 'B' && outages.some((w) => o.at >= w.from && o.at <= w.to + 1000);
          if (!explained) {
            t.errorsOutsideOutages++;
            if (t.examples.length < 5) t.examples.push(`${(o.at / 1000).toFixed(1)} s: ${o.error}`);
          }
          return;
        }
        t.answered++;
        t.latenciesMs.push(o.ms);
        if (o.report) t.reports++;
      },
    );
    const inFlight = new Set<Promise<void>>();
    const fire = (d: Device) => {
      const p = driver.next(d).finally(() => inFlight.delete(p));
      inFlight.add(p);
    };

    // Capacity: every device sending as fast as it is answered, both instances up.
    const capacitySeconds = Math.min(20, Math.max(8, seconds / 30));
    counting = true;
    const capacityStart = performance.now();
    const capacityEnd = capacityStart + capacitySeconds * 1000;
    await Promise.all(
      devices.map(async (d) => {
        while (performance.now() < capacityEnd) await driver.next(d);
      }),
    );
    const capacity = (tally.A.answered + tally.B.answered) / ((performance.now() - capacityStart) / 1000);
    const capacityErrors = tally.A.errors + tally.B.errors;
    if (capacityErrors > 0)
      throw new Error(
        `errors while measuring capacity: ${JSON.stringify(tally.A.examples.concat(tally.B.examples))}` +
          serverErrors(instances),
      );
    for (const t of Object.values(tally))
      Object.assign(t, { answered: 0, reports: 0, wronglyRefused: 0, latenciesMs: [] });
    sessionChecks = 0;
    const rate = capacity / 2;
    progress(`capacity ${capacity.toFixed(0)} req/s, soaking at ${rate.toFixed(0)} req/s for ${seconds} s`);

    // The warn deadlines: one per kill, DEADLINE_AFTER_KILL_MS after it; each group takes sessions through B.
    const soakStartWall = Date.now() + 2_000;
    for (const g of warnGroups) {
      g.deadline = soakStartWall + g.k * KILL_EVERY_MS + DEADLINE_AFTER_KILL_MS;
      const checkId = await created(admin, 'posture-checks', {
        name: `${g.tag}-domain`,
        typeId: 'DOMAIN',
        domains: ['soak.example'],
        enforcement: { mode: 'warn', enforceFrom: new Date(g.deadline).toISOString() },
      });
      await created(admin, 'service-policies', {
        name: `${g.tag}-policy`,
        type: 'Dial',
        semantic: 'AllOf',
        identityRoles: [`#${g.tag}`],
        serviceRoles: [`@${g.serviceId}`],
        postureCheckRoles: [`@${checkId}`],
      });
    }
    for (const g of warnGroups)
      for (const m of g.members) {
        const res = await fetch(`${url(instances.B)}${CLIENT}/sessions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'zt-session': m.token },
          body: JSON.stringify({ serviceId: g.serviceId, type: 'Dial' }),
        });
        const body = (await res.json()) as { data?: { id?: string } };
        if (res.status !== 201 || !body.data?.id)
          throw new Error(`warn group ${g.k}: session refused before the deadline (${res.status})`);
        g.sessionIds.push(body.data.id);
      }
    await sleep(Math.max(0, soakStartWall - Date.now()));

    // The soak.
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    const endAt = seconds * 1000;
    const lostReports = new Set<string>();
    let reportChecks = 0;
    const checkReports = async () => {
      const acked = devices.map((d) => d.acked);
      const rows = await db.query<{ identity_id: string; value: string }>(
        `SELECT identity_id, value FROM posture_facts WHERE kind = 'mac' AND identity_id = ANY($1)`,
        [devices.map((d) => d.identityId)],
      );
      const stored = new Map(rows.rows.map((r) => [r.identity_id, r.value]));
      for (const d of devices) {
        if (acked[d.index] === 0) continue;
        const seq = storedSequence(d.index, stored.get(d.identityId) ?? '') ?? 0;
        if (seq < acked[d.index]!)
          lostReports.add(`device ${d.index} report ${acked[d.index]} (stored ${seq})`);
      }
      reportChecks++;
    };
    const rss: { at: number; mib: number }[] = [];
    const deadlineResults: { k: number; latenessMs: number | null; early: boolean }[] = [];

    const killer = (async () => {
      for (let k = 1; k <= kills; k++) {
        await sleep(Math.max(0, k * KILL_EVERY_MS - elapsed()));
        if (elapsed() >= endAt) return;
        const b = instances.B;
        outages.push({ from: elapsed(), to: Number.POSITIVE_INFINITY });
        await b.proc!.stop('SIGKILL');
        await start(b);
        outages[outages.length - 1]!.to = elapsed();
        progress(`kill ${k}: B back after ${((elapsed() - outages.at(-1)!.from) / 1000).toFixed(1)} s`);
        await checkReports();
      }
    })();

    const watchDeadlines = Promise.all(
      warnGroups.map(async (g) => {
        await sleep(Math.max(0, g.deadline - 1_000 - Date.now()));
        const present = async () =>
          (await db.query('SELECT id FROM edge_sessions WHERE id = ANY($1)', [g.sessionIds])).rowCount ?? 0;
        const early = (await present()) < g.sessionIds.length;
        let latenessMs: number | null = null;
        while (Date.now() < g.deadline + 30_000) {
          if ((await present()) === 0) {
            latenessMs = Math.max(0, Date.now() - g.deadline);
            break;
          }
          await sleep(100);
        }
        deadlineResults.push({ k: g.k, latenessMs, early });
        progress(
          `deadline ${g.k}: sessions gone ${latenessMs ?? 'never'} ms after it${early ? ', some before it' : ''}`,
        );
        // From now on the group must be refused wherever it asks.
        while (elapsed() < endAt - 2_000) {
          for (const [i, m] of g.members.entries()) {
            const at = i % 2 === 0 ? instances.A : instances.B;
            const res = await fetch(`${url(at)}${CLIENT}/sessions`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'zt-session': m.token },
              body: JSON.stringify({ serviceId: g.serviceId, type: 'Dial' }),
            }).catch(() => undefined); // B may be down: its errors are the load's to count
            await res?.arrayBuffer();
            if (res?.status === 201)
              violations.push(`warn group ${g.k} granted a session after its deadline`);
          }
          await sleep(5_000);
        }
      }),
    );

    // Open-loop load at `rate`: a request is due every 1/rate s, sent by the next idle device; when none is
    // idle the generator is behind and the request is dropped (counted), not queued.
    let issued = 0;
    let dropped = 0;
    let cursor = 0;
    let nextCheck = CHECK_EVERY_MS;
    while (elapsed() < endAt) {
      const due = Math.floor((rate * elapsed()) / 1000);
      while (issued < due) {
        let found: Device | undefined;
        for (let tries = 0; tries < devices.length && !found; tries++) {
          const d = devices[cursor++ % devices.length]!;
          if (!d.busy) found = d;
        }
        if (!found) {
          dropped += due - issued;
          issued = due;
          break;
        }
        fire(found);
        issued++;
      }
      if (elapsed() >= nextCheck) {
        nextCheck += CHECK_EVERY_MS;
        rss.push({ at: elapsed(), mib: rssMiB(instances.A.proc!.child.pid!) });
        void checkReports().catch((err: unknown) => violations.push(`report check failed: ${String(err)}`));
      }
      await sleep(10);
    }
    const soakSeconds = elapsed() / 1000;
    progress('load stopped; final checks');
    await killer;
    await Promise.all(inFlight);
    counting = false;
    await watchDeadlines;
    await checkReports();

    // The session log: no device refused by policy ever held a session.
    const refusedIds = devices.filter((d) => d.kind === 'denied').map((d) => d.identityId);
    const logged = await db.query<{ n: string }>(
      'SELECT count(*) AS n FROM soak_session_log WHERE identity_id = ANY($1)',
      [refusedIds],
    );
    if (Number(logged.rows[0]!.n) > 0)
      violations.push(`${logged.rows[0]!.n} sessions of denied devices in the log`);
    for (const g of warnGroups) {
      const late = await db.query<{ n: string }>(
        'SELECT count(*) AS n FROM soak_session_log WHERE identity_id = ANY($1) AND at > $2',
        [g.members.map((m) => m.identityId), new Date(g.deadline)],
      );
      if (Number(late.rows[0]!.n) > 0)
        violations.push(`warn group ${g.k}: ${late.rows[0]!.n} sessions after its deadline`);
    }

    return soakResults({
      seconds: soakSeconds,
      kills,
      capacity,
      capacitySeconds,
      rate,
      dropped,
      tally,
      violations,
      sessionChecks,
      lostReports: [...lostReports],
      reportChecks,
      deadlineResults,
      rss,
      outages,
    });
  } finally {
    await db.end();
    for (const i of Object.values(instances)) {
      await i.proc?.stop('SIGTERM');
      rmSync(i.dataDir, { recursive: true, force: true });
    }
    await server.stop();
  }
}

/**
 * A log of every edge session ever inserted (the controllers delete revoked ones, and trim their own outbox),
 * written by a trigger in the inserting transaction: the soak's own probe, on the database it owns.
 */
async function installSessionLog(db: pg.Pool): Promise<void> {
  await db.query(`
    CREATE TABLE soak_session_log (id text, identity_id text, at timestamptz NOT NULL DEFAULT clock_timestamp());
    CREATE FUNCTION soak_log_session() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO soak_session_log (id, identity_id) VALUES (NEW.id, NEW.identity_id);
      RETURN NULL;
    END $$;
    CREATE TRIGGER soak_session_logged AFTER INSERT ON edge_sessions
      FOR EACH ROW EXECUTE FUNCTION soak_log_session();`);
}

interface SoakRun {
  seconds: number;
  kills: number;
  capacity: number;
  capacitySeconds: number;
  rate: number;
  dropped: number;
  tally: Record<InstanceName, Tally>;
  violations: string[];
  sessionChecks: number;
  lostReports: string[];
  reportChecks: number;
  deadlineResults: { k: number; latenessMs: number | null; early: boolean }[];
  rss: { at: number; mib: number }[];
  outages: { from: number; to: number }[];
}

function soakResults(run: SoakRun): Figure[] {
  const { tally } = run;
  const answered = tally.A.answered + tally.B.answered;
  const reports = tally.A.reports + tally.B.reports;
  const restartSeconds = run.outages.map((o) => ((o.to - o.from) / 1000).toFixed(1)).join(', ');
  const context = `${run.seconds.toFixed(0)} s, B killed (SIGKILL) and restarted ${run.outages.length} times (restarts took ${restartSeconds} s)`;

  // Memory: after warm-up (the first third, at least a minute), the last 30 s against the 30 s after warm-up.
  const warmUpMs = Math.max(60_000, (run.seconds * 1000) / 3);
  const window = (from: number, to: number) =>
    median(run.rss.filter((s) => s.at >= from && s.at < to).map((s) => s.mib));
  const afterWarmUp = window(warmUpMs, warmUpMs + 30_000);
  const atEnd = window(run.seconds * 1000 - 30_000, Number.POSITIVE_INFINITY);
  const growth = ((atEnd - afterWarmUp) / afterWarmUp) * 100;

  const lateness = run.deadlineResults.map((d) => d.latenessMs ?? Number.POSITIVE_INFINITY);
  const worst = lateness.length ? Math.max(...lateness) : 0;
  const early = run.deadlineResults.filter((d) => d.early).length;
  const deadlineValue = early > 0 ? Number.POSITIVE_INFINITY : worst;
  const aP99 = percentile(tally.A.latenciesMs, 99);
  const deadlineBound = 2 * TAKEOVER_INTERVAL_MS + aP99;

  return [
    figure({
      name: 'soak.load',
      label: 'Soak load, two instances on one PostgreSQL',
      value: answered / run.seconds,
      unit: 'req/s',
      baseline: run.capacity,
      baselineLabel: `capacity measured first (${run.capacitySeconds.toFixed(0)} s, every device closed-loop, both instances up)`,
      note:
        `informational (no target): the soak's answered requests per second against the capacity it aimed at half of ` +
        `(${run.rate.toFixed(0)} req/s offered, ${run.dropped} dropped for want of an idle device); ${context}; ` +
        `${DEVICES.passing} passing, ${DEVICES.denied} denied, ${DEVICES.flapping} flapping devices, half bound to each instance`,
    }),
    figure({
      name: 'soak.lost-reports',
      label: 'Soak: acknowledged posture reports not stored',
      value: run.lostReports.length,
      unit: 'reports',
      target: { valueMax: 1 },
      note:
        `${reports} reports acknowledged; the database read ${run.reportChecks} times (every ${CHECK_EVERY_MS / 1000} s and after each restart), ` +
        `each device's stored report the last acknowledged or later${run.lostReports.length ? `; lost: ${run.lostReports.slice(0, 5).join('; ')}` : ''}; ${context}`,
    }),
    figure({
      name: 'soak.sessions-against-policy',
      label: 'Soak: sessions granted against policy',
      value: run.violations.length,
      unit: 'sessions',
      target: { valueMax: 1 },
      note:
        `${run.sessionChecks} session requests answered, each checked against the device's last acknowledged report ` +
        `(denied devices at home, flapping devices at the other instance right after a failing report, warn groups after their deadline); ` +
        `a trigger's log of every session inserted holds none for a denied device nor a warn group after its deadline; ` +
        `${tally.A.wronglyRefused + tally.B.wronglyRefused} refusals of an allowed request (informational)` +
        `${run.violations.length ? `; violations: ${run.violations.slice(0, 5).join('; ')}` : ''}; ${context}`,
    }),
    figure({
      name: 'soak.deadline-lateness',
      label: 'Soak: warn deadlines whose owner was killed, worst lateness',
      value: deadlineValue,
      unit: 'ms',
      baseline: deadlineBound,
      baselineLabel: `the bound: 2 takeover intervals (${2 * TAKEOVER_INTERVAL_MS} ms) + the surviving instance's p99 request latency in this run (${aP99.toFixed(0)} ms)`,
      target: { ratioMax: 1 },
      note:
        `${run.deadlineResults.length} deadlines, each ${DEADLINE_AFTER_KILL_MS / 1000} s after a kill of B, which armed them ` +
        `(${WARN_DEVICES_PER_GROUP} sessions each, taken through B): sessions gone ${lateness.map((l) => (Number.isFinite(l) ? `${l} ms` : 'never')).join(', ')} after the deadline; ` +
        `${early} revoked early; the takeover claims a deadline once overdue by one interval and looks every interval, then re-evaluates ` +
        `and revokes in a transaction, about one request's work, hence the p99 in the bound; ${context}`,
    }),
    figure({
      name: 'soak.rss-growth',
      label: 'Soak: surviving instance resident memory growth after warm-up',
      value: growth,
      unit: '%',
      target: { valueMax: RSS_GROWTH_MAX_PERCENT },
      note:
        `instance A's VmRSS every ${CHECK_EVERY_MS / 1000} s: median of the last 30 s ${atEnd.toFixed(1)} MiB against ` +
        `${afterWarmUp.toFixed(1)} MiB in the 30 s after warm-up (${(warmUpMs / 1000).toFixed(0)} s); ` +
        `range ${Math.min(...run.rss.map((s) => s.mib)).toFixed(1)}-${Math.max(...run.rss.map((s) => s.mib)).toFixed(1)} MiB; ${context}`,
    }),
    figure({
      name: 'soak.errors.surviving-instance',
      label: 'Soak: failed requests at the surviving instance',
      value: tally.A.errors,
      unit: 'requests',
      target: { valueMax: 1 },
      note: `${tally.A.answered} answered at A${tally.A.examples.length ? `; e.g. ${tally.A.examples.join('; ')}` : ''}; ${context}`,
    }),
    figure({
      name: 'soak.errors.killed-instance-outside-outages',
      label: 'Soak: failed requests at the killed instance outside its outages',
      value: tally.B.errorsOutsideOutages,
      unit: 'requests',
      target: { valueMax: 1 },
      note:
        `${tally.B.errors} failed at B in all, the others from its kill until it listened again (+1 s); ${tally.B.answered} answered` +
        `${tally.B.examples.length ? `; e.g. ${tally.B.examples.join('; ')}` : ''}; ${context}`,
    }),
  ];
}

/** The controllers' own words on what failed (their error-level log lines), for a bench that stops on errors. */
function serverErrors(instances: Record<InstanceName, Instance>): string {
  const lines = Object.values(instances).flatMap((i) =>
    (i.proc?.output() ?? '')
      .split('\n')
      .filter((line) => /"level":(50|60)/.test(line))
      .slice(-3)
      .map((line) => `\n  ${i.name}: ${line.slice(0, 2000)}`),
  );
  return lines.length > 0 ? `\ncontroller errors:${lines.join('')}` : '';
}
