/**
 * The console sorts its identities page by any column. Sorting by type or creation time, either way, must read
 * the first page from an index rather than sort every identity (SQLite's "USE TEMP B-TREE FOR ORDER BY"), ties included: the
 * plan of the very statement the store runs, captured as it is prepared.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SqliteStore } from '../../../controller/store/sqlite-store.js';
import { tempDir } from '../../helpers/controller.js';

let dir: string;
let store: SqliteStore;
const prepared: string[] = [];

beforeAll(() => {
  dir = tempDir();
  store = SqliteStore.open(dir);
  const prepare = store.db.prepare.bind(store.db);
  store.db.prepare = ((source: string) => {
    prepared.push(source);
    return prepare(source);
  }) as typeof store.db.prepare;
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function pagePlan(filter: string): string {
  prepared.length = 0;
  store.sync.identities.list({ limit: 25, offset: 0, filter });
  // the page's statement (its total rides along as a scalar subquery, store/sql/paged.ts)
  const page = prepared.find((sql) =>
    /^SELECT .* FROM identities .*ORDER BY .*LIMIT \? OFFSET \?$/s.test(sql),
  );
  expect(page, filter).toBeDefined();
  const steps = store.db.prepare(`EXPLAIN QUERY PLAN ${page!}`).all(25, 0) as { detail: string }[];
  return steps.map((s) => s.detail).join('\n');
}

it.each([
  'true sort by type asc',
  'true sort by type desc',
  'true sort by createdAt asc',
  'true sort by createdAt desc',
])('%s reads the page from an index', (filter) => {
  const plan = pagePlan(filter);
  // not even for the tie-breaker ("FOR RIGHT PART OF ORDER BY")
  expect(plan).not.toMatch(/TEMP B-TREE/);
  expect(plan).toMatch(/identities_by_(type|created)/);
});
