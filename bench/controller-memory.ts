/**
 * Controller resident memory (VmRSS) with 10k identities and their posture data: OS, MAC, domain and two
 * processes per identity, one API session each with an MFA pass, the full catalog (5k services, 1k policies,
 * 500 checks), after the start-up evaluation and 1000 identities have listed their services. The baseline
 * is the same controller on an empty store after the same number of requests (from the admin). Measured on
 * both stores: SQLite (`controller.rss-10k`) and a real PostgreSQL server (`controller.rss-10k.postgres`).
 * Goal on both: at most 1.5 x the empty controller (the caches are bounded; docs/PERFORMANCE.md).
 */
import { rmSync } from 'node:fs';
import { SqliteStore } from '../controller/store/sqlite-store.js';
import { PgStore } from '../controller/store/postgres/pg-store.js';
import type { Store } from '../controller/store/repository.js';
import { startPostgres } from '../test/helpers/postgres-server.js';
import { Api, CLIENT, MGMT, inBatches } from './lib/api-setup.js';
import { adminOf, startControllerChild, tempDir } from './lib/children.js';
import { figure, type Figure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { rssMiB, sleep } from './lib/proc-stats.js';
import {
  FULL_CATALOG,
  seedApiSession,
  seedCatalog,
  seedCatalogAsync,
  seedIdentities,
  seedIdentitiesAsync,
} from './lib/seed-store.js';

const IDENTITIES = 10_000;
const REQUESTS = 1_000;
const GOAL = { ratioMax: 1.5 };

/** Settled RSS: after a pause for the start-up evaluation's background chunks and a GC opportunity. */
async function settledRss(pid: number): Promise<number> {
  await sleep(3_000);
  return rssMiB(pid);
}

/** One API session with an MFA pass per seeded identity; their tokens. */
async function seedSessions(store: Store): Promise<string[]> {
  const tokens: string[] = [];
  await store.transaction(async () => {
    for (const identity of (await store.identities.list({ limit: IDENTITIES, offset: 0 })).items) {
      const { id, token } = await seedApiSession(store, identity.id);
      await store.posture.data.updateApiSession(id, identity.id, { mfaPassedAt: new Date() });
      tokens.push(token);
    }
  });
  return tokens;
}

/** Where a controller child keeps its store: its data dir (SQLite) or a database (`env`). */
interface StoreSite {
  dataDir?: string;
  env?: Record<string, string>;
}

/** The empty controller's RSS after REQUESTS admin reads, and the loaded one's after REQUESTS service lists. */
async function measure(empty: StoreSite, loaded: StoreSite, tokens: string[]) {
  const emptyChild = await startControllerChild(empty.dataDir, empty.env);
  let baseline: number;
  try {
    const admin = await adminOf(emptyChild.url);
    await inBatches(Array.from({ length: REQUESTS }), 10, () => admin.get(`${MGMT}/identities?limit=10`));
    baseline = await settledRss(emptyChild.pid);
  } finally {
    await emptyChild.stop();
    rmSync(emptyChild.dataDir, { recursive: true, force: true });
  }
  const loadedChild = await startControllerChild(loaded.dataDir, loaded.env);
  try {
    await inBatches(tokens.slice(0, REQUESTS), 10, async (token) => {
      const res = await new Api(loadedChild.url, token).get(`${CLIENT}/services?limit=500`);
      if (res.status !== 200) throw new Error(`GET /services: ${res.status} ${JSON.stringify(res.body)}`);
    });
    return { baseline, value: await settledRss(loadedChild.pid) };
  } finally {
    await loadedChild.stop();
    if (loaded.dataDir === undefined) rmSync(loadedChild.dataDir, { recursive: true, force: true });
  }
}

const NOTE = `VmRSS of the controller process (run through tsx) after ${REQUESTS} GET /services from seeded API sessions`;

async function sqliteFigure(): Promise<Figure> {
  const dataDir = tempDir('postern-bench-memory-');
  try {
    const store = SqliteStore.open(dataDir);
    let tokens: string[];
    try {
      seedCatalog(store, FULL_CATALOG);
      seedIdentities(store, 0, IDENTITIES, true);
      tokens = await seedSessions(store);
    } finally {
      await store.close();
    }
    const { baseline, value } = await measure({}, { dataDir }, tokens);
    return figure({
      name: 'controller.rss-10k',
      label: 'controller resident memory, 10k identities with posture data',
      value,
      unit: 'MiB',
      baseline,
      baselineLabel: 'the same controller on an empty store',
      target: GOAL,
      note: NOTE,
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function postgresFigure(): Promise<Figure> {
  const server = await startPostgres();
  try {
    const emptyUrl = await server.createDatabase();
    const loadedUrl = await server.createDatabase();
    const store = await PgStore.open(loadedUrl);
    let tokens: string[];
    try {
      await seedCatalogAsync(store, FULL_CATALOG);
      await seedIdentitiesAsync(store, 0, IDENTITIES);
      tokens = await seedSessions(store);
    } finally {
      await store.close();
    }
    const { baseline, value } = await measure(
      { env: { POSTERN_DATABASE_URL: emptyUrl } },
      { env: { POSTERN_DATABASE_URL: loadedUrl } },
      tokens,
    );
    return figure({
      name: 'controller.rss-10k.postgres',
      label: 'controller resident memory, 10k identities with posture data, on PostgreSQL',
      value,
      unit: 'MiB',
      baseline,
      baselineLabel: 'the same controller on an empty PostgreSQL database',
      target: GOAL,
      note: `${NOTE}; the database on a local PostgreSQL server (its memory not counted)`,
    });
  } finally {
    await server.stop();
  }
}

export async function controllerMemoryFigures(_options: BenchOptions): Promise<Figure[]> {
  return [await sqliteFigure(), await postgresFigure()];
}
