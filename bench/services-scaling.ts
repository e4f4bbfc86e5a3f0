/**
 * `GET /edge/client/v1/services` latency for one identity reaching 50 services, as the store grows from 100
 * to 10k to 100k identities around a fixed catalog (5k services, 1k policies, 500 checks). The data is
 * seeded through SqliteStore (seed-store.ts), then the controller CLI is started on it in a child process
 * and the identity's requests are timed one after another from this process. The 100-identity figure is
 * the baseline: resolving one identity's access must not grow with the number of other identities.
 */
import { Api, CLIENT } from './lib/api-setup.js';
import { startControllerChild, tempDir } from './lib/children.js';
import { figure, median, percentile, type Figure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { FULL_CATALOG, seedCatalog, seedIdentities, seedPostureData, seedUsers } from './lib/seed-store.js';
import { SqliteStore } from '../controller/store/sqlite-store.js';
import { rmSync } from 'node:fs';

const SIZES = [
  { identities: 100, name: '100' },
  { identities: 10_000, name: '10k' },
  { identities: 100_000, name: '100k' },
];
const PASSWORD = 'scale-password';

/** A logged-in client of one controller, and its request timings. */
interface Probe {
  name: string;
  identities: number;
  api: Api;
  times: number[];
  seedSeconds: number;
}

async function getServices(probe: Probe): Promise<number> {
  const res = await probe.api.get(`${CLIENT}/services?limit=500`);
  if (res.status !== 200)
    throw new Error(`GET /services (${probe.name}): ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.length as number;
}

/** A data dir with the catalog, the measured identity (team-0: 50 services) and `identities - 1` others. */
async function seedDataDir(identities: number): Promise<{ dataDir: string; seedSeconds: number }> {
  const started = performance.now();
  const dataDir = tempDir('postern-bench-scale-');
  const store = SqliteStore.open(dataDir);
  try {
    seedCatalog(store, FULL_CATALOG);
    const [targetId] = await seedUsers(store, ['scale-target'], PASSWORD, ['team-0']);
    seedPostureData(store, targetId!);
    seedIdentities(store, 1, identities);
  } finally {
    await store.close();
  }
  return { dataDir, seedSeconds: (performance.now() - started) / 1000 };
}

/**
 * The three stores are served by three controllers at once and their requests interleaved (one to each in
 * turn), so a noisy neighbour slows all three alike instead of whichever happened to run during the burst.
 */
export async function servicesScalingFigures(options: BenchOptions): Promise<Figure[]> {
  const requests = options.quick ? 100 : 400;
  const dirs: string[] = [];
  const controllers: Awaited<ReturnType<typeof startControllerChild>>[] = [];
  const probes: Probe[] = [];
  try {
    for (const size of SIZES) {
      const { dataDir, seedSeconds } = await seedDataDir(size.identities);
      dirs.push(dataDir);
      const controller = await startControllerChild(dataDir);
      controllers.push(controller);
      const api = new Api(controller.url);
      const login = await api.login('scale-target', PASSWORD, CLIENT);
      if (login.status !== 200) throw new Error(`login failed: ${JSON.stringify(login.body)}`);
      probes.push({ name: size.name, identities: size.identities, api, times: [], seedSeconds });
    }
    for (const probe of probes) {
      const services = await getServices(probe);
      if (services !== 50) throw new Error(`the measured identity should reach 50 services, got ${services}`);
      for (let i = 0; i < 30; i++) await getServices(probe); // warm: JIT, SQLite page cache
    }
    for (let i = 0; i < requests; i++) {
      for (const probe of probes) {
        const started = performance.now();
        await getServices(probe);
        probe.times.push(performance.now() - started);
      }
    }
  } finally {
    for (const c of controllers) await c.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
  const first = median(probes[0]!.times);
  return probes.map((p) =>
    figure({
      name: `services.${p.name}`,
      label: `GET /services, 50 services, ${p.identities.toLocaleString('en')} identities (median)`,
      value: median(p.times),
      unit: 'ms',
      baseline: first,
      baselineLabel: 'the same request with 100 identities',
      target: p.name === '100k' ? { ratioMax: 1.5 } : null,
      note: `${requests} requests per store, interleaved across the three controllers, after 30 warm-up; p99 ${percentile(p.times, 99).toFixed(2)} ms; catalog 5k services, 1k policies, 500 checks; seeded through SqliteStore in ${p.seedSeconds.toFixed(1)} s`,
    }),
  );
}
