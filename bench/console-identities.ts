/**
 * The console's identities page with 100 and with 10,000 identities: the API requests the page makes
 * (console/src/pages/identities/identity-list-page.tsx through useList and listPage), timed against two
 * controllers at once. The page asks for one page of 25 at a time in the API's filter grammar; a visit is
 * opening it, the next page, each sortable column header clicked once and twice (name the other way, type,
 * created) and a search.
 *
 * Both stores are filled as an administrator would fill them: `POST /identities/import` (CSV, 1,000 rows a
 * call, each row with a one-time enrollment token), so every listed identity carries a pending enrollment,
 * as identities made in the console or by an import do. The 100-identity store is the baseline: a page of
 * 25 must not cost more because 9,975 other identities exist.
 */
import { rmSync } from 'node:fs';
import { Api, MGMT } from './lib/api-setup.js';
import { adminOf, startControllerChild } from './lib/children.js';
import { figure, median, percentile, type Figure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';

const SIZES = [
  { identities: 100, name: '100' },
  { identities: 10_000, name: '10k' },
];
/** the console's page size (console/src/lib/use-list.ts) */
const PAGE_SIZE = 25;
const IMPORT_ROWS = 1_000;
/** matches person-00040 .. person-00049 in either store: ten rows, as a typed name would */
const SEARCH = 'person-0004';

/** The filters the page sends (console/src/api/list-query.ts, `filterOf`), one per thing an administrator does. */
const VIEWS = [
  { key: 'open', label: 'open (sort by name)', filter: `sort by name asc skip 0 limit ${PAGE_SIZE}` },
  { key: 'next', label: 'next page', filter: `sort by name asc skip ${PAGE_SIZE} limit ${PAGE_SIZE}` },
  { key: 'name-desc', label: 'name, descending', filter: `sort by name desc skip 0 limit ${PAGE_SIZE}` },
  { key: 'type', label: 'sort by type', filter: `sort by type asc skip 0 limit ${PAGE_SIZE}` },
  { key: 'type-desc', label: 'type, descending', filter: `sort by type desc skip 0 limit ${PAGE_SIZE}` },
  { key: 'created', label: 'sort by created', filter: `sort by createdAt asc skip 0 limit ${PAGE_SIZE}` },
  {
    key: 'created-desc',
    label: 'created, descending',
    filter: `sort by createdAt desc skip 0 limit ${PAGE_SIZE}`,
  },
  {
    key: 'search',
    label: `search "${SEARCH}"`,
    filter: `name icontains "${SEARCH}" sort by name asc skip 0 limit ${PAGE_SIZE}`,
  },
] as const;

interface Probe {
  name: string;
  identities: number;
  admin: Api;
  /** per view: request times (ms) */
  times: Record<string, number[]>;
  /** per round: the whole visit (ms) */
  visits: number[];
  seedSeconds: number;
}

const pad = (i: number) => String(i).padStart(5, '0');

/** Creates `count` identities through the CSV import route, 1,000 rows a call, each with an ott enrollment. */
async function importIdentities(admin: Api, count: number): Promise<void> {
  for (let start = 0; start < count; start += IMPORT_ROWS) {
    const rows = ['name,type,roleAttributes,isAdmin,enrollment'];
    for (let i = start; i < Math.min(count, start + IMPORT_ROWS); i++)
      rows.push(`person-${pad(i)},User,team-${i % 50};site-${i % 7},false,ott`);
    const res = await admin.request('POST', `${MGMT}/identities/import`, `${rows.join('\n')}\n`, {
      'content-type': 'text/csv',
    });
    if (res.status !== 200)
      throw new Error(`import: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
    const failed = (res.body as { meta: { failed: number } }).meta.failed;
    if (failed) throw new Error(`import: ${failed} rows refused: ${JSON.stringify(res.body).slice(0, 500)}`);
  }
}

async function view(probe: Probe, filter: string): Promise<{ rows: number; total: number }> {
  const res = await probe.admin.get(`${MGMT}/identities?filter=${encodeURIComponent(filter)}`);
  if (res.status !== 200)
    throw new Error(`GET /identities (${probe.name}, ${filter}): ${res.status} ${JSON.stringify(res.body)}`);
  return { rows: res.body.data.length as number, total: res.body.meta.pagination.totalCount as number };
}

/**
 * Both controllers run at once and each round visits the page on one, then the other, so a noisy
 * neighbour slows both alike instead of whichever ran during the burst.
 */
export async function consoleIdentitiesFigures(options: BenchOptions): Promise<Figure[]> {
  const rounds = options.quick ? 50 : 300;
  const controllers: Awaited<ReturnType<typeof startControllerChild>>[] = [];
  const probes: Probe[] = [];
  try {
    for (const size of SIZES) {
      const controller = await startControllerChild();
      controllers.push(controller);
      const admin = await adminOf(controller.url);
      const started = performance.now();
      await importIdentities(admin, size.identities);
      const seedSeconds = (performance.now() - started) / 1000;
      probes.push({
        name: size.name,
        identities: size.identities,
        admin,
        times: Object.fromEntries(VIEWS.map((v) => [v.key, []])),
        visits: [],
        seedSeconds,
      });
    }
    for (const probe of probes) {
      // The admin and the imported identities.
      const opened = await view(probe, VIEWS[0].filter);
      if (opened.total !== probe.identities + 1 || opened.rows !== PAGE_SIZE)
        throw new Error(
          `${probe.name}: ${opened.rows} rows of ${opened.total}, expected ${PAGE_SIZE} of ${probe.identities + 1}`,
        );
      const found = await view(probe, VIEWS.find((v) => v.key === 'search')!.filter);
      if (found.total !== 10) throw new Error(`${probe.name}: search found ${found.total}, expected 10`);
      for (let i = 0; i < 20; i++) for (const v of VIEWS) await view(probe, v.filter); // warm: JIT, page cache
    }
    for (let round = 0; round < rounds; round++) {
      for (const probe of probes) {
        let visit = 0;
        for (const v of VIEWS) {
          const started = performance.now();
          await view(probe, v.filter);
          const ms = performance.now() - started;
          probe.times[v.key]!.push(ms);
          visit += ms;
        }
        probe.visits.push(visit);
      }
    }
  } finally {
    for (const c of controllers) {
      await c.stop();
      rmSync(c.dataDir, { recursive: true, force: true });
    }
  }
  const [small, large] = probes as [Probe, Probe];
  const seeded = `identities imported as CSV with ott enrollments (${small.seedSeconds.toFixed(1)} s and ${large.seedSeconds.toFixed(1)} s)`;
  const figures: Figure[] = [];
  for (const probe of probes) {
    figures.push(
      figure({
        name: `console-identities.visit.${probe.name}`,
        label: `console identities page, ${VIEWS.length} requests, ${probe.identities.toLocaleString('en')} identities (median visit)`,
        value: median(probe.visits),
        unit: 'ms',
        baseline: median(small.visits),
        baselineLabel: 'the same visit with 100 identities',
        target: probe === large ? { ratioMax: 1.5 } : null,
        note: `a visit: ${VIEWS.map((v) => v.label).join(', ')}; pages of ${PAGE_SIZE}; ${rounds} visits per store, interleaved across the two controllers, after 20 warm-up; p99 ${percentile(probe.visits, 99).toFixed(2)} ms; ${seeded}`,
      }),
    );
  }
  for (const v of VIEWS) {
    const base = median(small.times[v.key]!);
    figures.push(
      figure({
        name: `console-identities.${v.key}.10k`,
        label: `  of which ${v.label}, 10k identities (median)`,
        value: median(large.times[v.key]!),
        unit: 'ms',
        baseline: base,
        baselineLabel: 'the same request with 100 identities',
        note: `GET /identities?filter=${v.filter}; p99 ${percentile(large.times[v.key]!, 99).toFixed(2)} ms at 10k, ${percentile(small.times[v.key]!, 99).toFixed(2)} ms at 100`,
      }),
    );
  }
  return figures;
}
