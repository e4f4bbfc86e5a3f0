/**
 * The backend the configuration names, opened as one object (controller/backend/): on SQLite one controller
 * owns the data folder (a second backend on it is refused until the first closes); on PostgreSQL instances
 * share the database, attempt counts included (a failure counted through one backend blocks through the
 * other). Runs in both projects, each on its own backend.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { openBackend } from '../../controller/backend/open-backend.js';
import type { StoreBackend } from '../../controller/backend/store-backend.js';
import { DataFolderInUse } from '../../controller/store/data-folder.js';
import { tempDir } from '../helpers/controller.js';
import { databaseFor, testBackend } from '../helpers/test-database.js';

const RULE = { maxFailures: 3, windowMs: 60_000, baseBlockMs: 60_000, maxBlockMs: 60_000 };

const opened: StoreBackend[] = [];
const dirs: string[] = [];

async function configuration() {
  const dataDir = tempDir('postern-backend-');
  dirs.push(dataDir);
  return { dataDir, database: await databaseFor(dataDir) };
}

async function open(config: { dataDir: string; database: string | undefined }): Promise<StoreBackend> {
  const backend = await openBackend(config);
  opened.push(backend);
  return backend;
}

afterEach(async () => {
  for (const backend of opened.splice(0).reverse()) await backend.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe(`openBackend (${testBackend()})`, () => {
  it('opens the store the configuration names, shared only on PostgreSQL', async () => {
    const backend = await open(await configuration());
    expect(backend.store.backend).toBe(testBackend());
    expect(backend.shared).toBe(testBackend() === 'postgres');
  });

  it.runIf(testBackend() === 'sqlite')(
    'SQLite: a second backend on the folder is refused while the first is open, and opens once it closed',
    async () => {
      const config = await configuration();
      const first = await openBackend(config);
      await expect(openBackend(config)).rejects.toBeInstanceOf(DataFolderInUse);
      await first.close();
      const second = await open(config);
      expect(await second.store.identities.count()).toBe(0);
    },
  );

  it.runIf(testBackend() === 'postgres')(
    'PostgreSQL: two backends on one database at once count attempts together',
    async () => {
      const config = await configuration();
      const [a, b] = [await open(config), await open(config)];
      const now = Date.now();
      const counted = a.limiters.counters('backend-test', RULE);
      for (let i = 0; i < RULE.maxFailures; i++) await counted.recordFailure('alice', now);
      const elsewhere = b.limiters.counters('backend-test', RULE);
      expect(await elsewhere.blockedUntil('alice')).toBeGreaterThan(now);
      expect(await elsewhere.reserve('alice', now)).toBe(false);
      expect(await elsewhere.reserve('bob', now)).toBe(true);
    },
  );
});
