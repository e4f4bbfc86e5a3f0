/**
 * `POST /edge/management/v1/posture-checks/preview` at 10,000 identities with posture data and 50 services
 * (target: under 1 s), against the same preview at 100 identities in the same run (the baseline).
 *
 * The worst case a preview meets: the change is to an OS check that a policy selecting `#all` identities and
 * `#all` services requires, and it makes every device fail, so every identity is evaluated before and after for
 * every service and nearly every pair flips (of 10,000 x 50 pairs, all but those a team policy also grants: about 490,000 newly
 * refused; lists capped, counts exact). Besides
 * that policy, the catalogue holds 200 Dial policies (one per team attribute, each with its own OS check), so
 * each identity's evaluation also walks the policies of its two teams. Data seeded through SqliteStore
 * (seed-store.ts), then a controller child serves it.
 */
import { rmSync } from 'node:fs';
import { Api, MGMT } from './lib/api-setup.js';
import { adminOf, ADMIN_PASSWORD, startControllerChild, tempDir } from './lib/children.js';
import { figure, median, percentile, type Figure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { seedCatalog, seedIdentities, seedUsers } from './lib/seed-store.js';
import { SqliteStore } from '../controller/store/sqlite-store.js';

const SIZES = [
  { identities: 100, name: '100' },
  { identities: 10_000, name: '10k' },
];
const SERVICES = 50;
const TARGET_MS = 1_000;

interface Probe {
  name: string;
  identities: number;
  admin: Api;
  checkId: string;
  times: number[];
  seedSeconds: number;
  refused?: number;
}

async function seedDataDir(identities: number): Promise<{ dataDir: string; seedSeconds: number }> {
  const started = performance.now();
  const dataDir = tempDir('postern-bench-preview-');
  const store = SqliteStore.open(dataDir);
  try {
    // 100 checks (all OS, `>=5.x`, passed by the seeded Linux 6.8.0), 50 services, 200 team policies.
    seedCatalog(store, { services: SERVICES, policies: 200, checks: 100 });
    await seedUsers(store, ['admin'], ADMIN_PASSWORD, [], true);
    seedIdentities(store, 0, identities);
  } finally {
    await store.close();
  }
  return { dataDir, seedSeconds: (performance.now() - started) / 1000 };
}

async function created(admin: Api, collection: string, body: unknown): Promise<string> {
  const res = await admin.post(`${MGMT}/${collection}`, body);
  if (res.status !== 201) throw new Error(`${collection}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.id as string;
}

/** The previewed change: the baseline OS check raised beyond every device's version. */
const CHANGE = { operatingSystems: [{ type: 'Linux', versions: ['>=7.0.0'] }] };

async function preview(probe: Probe): Promise<{ refused: number }> {
  const res = await probe.admin.post(`${MGMT}/posture-checks/preview`, { id: probe.checkId, ...CHANGE });
  if (res.status !== 200)
    throw new Error(`preview (${probe.name}): ${res.status} ${JSON.stringify(res.body)}`);
  return { refused: res.body.data.newlyRefusedCount as number };
}

/** Both controllers run at once, their requests interleaved, so a noisy neighbour slows both alike. */
export async function impactPreviewFigures(options: BenchOptions): Promise<Figure[]> {
  const rounds = options.quick ? 5 : 30;
  const controllers: Awaited<ReturnType<typeof startControllerChild>>[] = [];
  const probes: Probe[] = [];
  try {
    for (const size of SIZES) {
      const { dataDir, seedSeconds } = await seedDataDir(size.identities);
      const controller = await startControllerChild(dataDir);
      controllers.push(controller);
      const admin = await adminOf(controller.url);
      const checkId = await created(admin, 'posture-checks', {
        name: 'baseline-os',
        typeId: 'OS',
        roleAttributes: ['baseline'],
        operatingSystems: [{ type: 'Linux', versions: ['>=6.0.0'] }],
      });
      await created(admin, 'service-policies', {
        name: 'everyone-everything',
        type: 'Dial',
        semantic: 'AnyOf',
        identityRoles: ['#all'],
        serviceRoles: ['#all'],
        postureCheckRoles: ['#baseline'],
      });
      probes.push({ name: size.name, identities: size.identities, admin, checkId, times: [], seedSeconds });
    }
    for (const probe of probes) {
      const { refused } = await preview(probe);
      // All but the few pairs a team policy of its own grants too (team-k reaches service k, for k < 50).
      if (refused < probe.identities * SERVICES * 0.9)
        throw new Error(
          `${probe.name}: only ${refused} newly refused of ${probe.identities * SERVICES} pairs`,
        );
      probe.refused = refused;
      for (let i = 0; i < 3; i++) await preview(probe); // warm: JIT, SQLite page cache
    }
    for (let round = 0; round < rounds; round++)
      for (const probe of probes) {
        const started = performance.now();
        await preview(probe);
        probe.times.push(performance.now() - started);
      }
  } finally {
    for (const c of controllers) {
      await c.stop();
      rmSync(c.dataDir, { recursive: true, force: true });
    }
  }
  const [small, large] = probes as [Probe, Probe];
  return [
    figure({
      name: 'impact-preview.10k',
      label: `POST /posture-checks/preview, ${large.identities.toLocaleString('en')} identities x ${SERVICES} services all flipping (median)`,
      value: median(large.times),
      unit: 'ms',
      baseline: median(small.times),
      baselineLabel: `the same preview with ${small.identities} identities`,
      target: { valueMax: TARGET_MS },
      note: `${rounds} previews per store, interleaved across the two controllers, after 3 warm-up; p99 ${percentile(large.times, 99).toFixed(1)} ms (${percentile(small.times, 99).toFixed(1)} ms at ${small.identities}); every identity with posture data (OS, MAC, domain, two processes); ${large.refused!.toLocaleString('en')} newly refused pairs counted, the first 1,000 listed; seeded through SqliteStore in ${large.seedSeconds.toFixed(1)} s`,
    }),
  ];
}
