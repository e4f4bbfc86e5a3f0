/**
 * Controller resident memory (VmRSS) with 10k identities and their posture data: OS, MAC, domain and two
 * processes per identity, one API session each with an MFA pass, the full catalog (5k services, 1k policies,
 * 500 checks), after the start-up evaluation and 1000 identities have listed their services. The baseline
 * is the same controller on an empty store after the same number of requests (from the admin).
 */
import { rmSync } from 'node:fs';
import { SqliteStore } from '../controller/store/sqlite-store.js';
import { Api, CLIENT, MGMT, inBatches } from './lib/api-setup.js';
import { adminOf, startControllerChild, tempDir } from './lib/children.js';
import { figure, type Figure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { rssMiB, sleep } from './lib/proc-stats.js';
import { FULL_CATALOG, seedApiSession, seedCatalog, seedIdentities } from './lib/seed-store.js';

const IDENTITIES = 10_000;
const REQUESTS = 1_000;

/** Settled RSS: after a pause for the start-up evaluation's background chunks and a GC opportunity. */
async function settledRss(pid: number): Promise<number> {
  await sleep(3_000);
  return rssMiB(pid);
}

export async function controllerMemoryFigures(_options: BenchOptions): Promise<Figure[]> {
  const dataDir = tempDir('postern-bench-memory-');
  try {
    const store = SqliteStore.open(dataDir);
    const tokens: string[] = [];
    try {
      seedCatalog(store, FULL_CATALOG);
      seedIdentities(store, 0, IDENTITIES, true);
      await store.transaction(async () => {
        for (const identity of (await store.identities.list({ limit: IDENTITIES, offset: 0 })).items) {
          const { id, token } = await seedApiSession(store, identity.id);
          await store.posture.data.updateApiSession(id, identity.id, { mfaPassedAt: new Date() });
          tokens.push(token);
        }
      });
    } finally {
      await store.close();
    }

    const empty = await startControllerChild();
    let baseline: number;
    try {
      const admin = await adminOf(empty.url);
      await inBatches(Array.from({ length: REQUESTS }), 10, () => admin.get(`${MGMT}/identities?limit=10`));
      baseline = await settledRss(empty.pid);
    } finally {
      await empty.stop();
      rmSync(empty.dataDir, { recursive: true, force: true });
    }

    const loaded = await startControllerChild(dataDir);
    try {
      await inBatches(tokens.slice(0, REQUESTS), 10, async (token) => {
        const res = await new Api(loaded.url, token).get(`${CLIENT}/services?limit=500`);
        if (res.status !== 200) throw new Error(`GET /services: ${res.status} ${JSON.stringify(res.body)}`);
      });
      const value = await settledRss(loaded.pid);
      return [
        figure({
          name: 'controller.rss-10k',
          label: 'controller resident memory, 10k identities with posture data',
          value,
          unit: 'MiB',
          baseline,
          baselineLabel: 'the same controller on an empty store',
          note: `VmRSS of the controller process (run through tsx) after ${REQUESTS} GET /services from seeded API sessions; informational (no target)`,
        }),
      ];
    } finally {
      await loaded.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
