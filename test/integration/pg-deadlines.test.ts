/**
 * Persisted deadlines on PostgreSQL: what is overdue (on the database's clock) is claimed, earliest first,
 * and of instances claiming at once each deadline goes to exactly one, raced from two connection pools as
 * two controllers race. SQLite keeps none (one controller per file: nothing to take over).
 */
import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../controller/store/database.js';
import { SqliteStore } from '../../controller/store/sqlite-store.js';
import { migratePostgres } from '../../controller/store/postgres/migrate.js';
import { PgDatabase } from '../../controller/store/postgres/pg-database.js';
import { PgDeadlineRepository } from '../../controller/store/postgres/deadline-repository.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { tempDir } from '../helpers/controller.js';

const MINUTE = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server?.stop());

describe('PostgreSQL deadlines', () => {
  let dbs: PgDatabase[];
  let a: PgDeadlineRepository;
  let b: PgDeadlineRepository;

  beforeAll(async () => {
    const url = await server.createDatabase();
    dbs = [
      new PgDatabase(new pg.Pool({ connectionString: url })),
      new PgDatabase(new pg.Pool({ connectionString: url })),
    ];
    await migratePostgres(dbs[0]!.pool);
    [a, b] = dbs.map((db) => new PgDeadlineRepository(db)) as [PgDeadlineRepository, PgDeadlineRepository];
  });
  afterAll(async () => {
    for (const db of dbs ?? []) await db.close();
  });

  const clear = () => dbs[0]!.run('DELETE FROM deadlines');
  const ownerOf = async (id: string) =>
    (await dbs[0]!.one<{ owner: string }>('SELECT owner FROM deadlines WHERE id = ?', [id]))?.owner;

  it('claims what is overdue by more than the margin, earliest first, for the claimer', async () => {
    await clear();
    await a.set('later', 'k', 's-later', MINUTE, 'A');
    await a.set('recent', 'k', 's-recent', -30_000, 'A');
    await a.set('old', 'k', 's-old', -3 * MINUTE, 'A');
    await a.set('older', 'k', 's-older', -5 * MINUTE, 'A');
    expect(await b.claimOverdue('B', MINUTE, 10)).toEqual([
      { id: 'older', kind: 'k', subject: 's-older' },
      { id: 'old', kind: 'k', subject: 's-old' },
    ]);
    expect(await ownerOf('old')).toBe('B');
    expect(await ownerOf('recent')).toBe('A');
    // with a shorter margin: the limit takes the earliest, and B's fresh claims stay B's
    expect(await a.claimOverdue('A', 10_000, 1)).toEqual([{ id: 'recent', kind: 'k', subject: 's-recent' }]);
  });

  it('keeps a claim for the margin, then lets another take it over; set re-arms it unclaimed', async () => {
    await clear();
    await a.set('d', 'k', 's', -MINUTE, 'A');
    expect(await b.claimOverdue('B', 200, 10)).toHaveLength(1);
    expect(await a.claimOverdue('A', 200, 10)).toEqual([]);
    await sleep(300);
    // B claimed it and did not finish within the margin (it stopped): A may take it.
    expect(await a.claimOverdue('A', 200, 10)).toEqual([{ id: 'd', kind: 'k', subject: 's' }]);
    expect(await ownerOf('d')).toBe('A');
    await a.set('d', 'k', 's', MINUTE, 'A');
    expect(await b.claimOverdue('B', 0, 10)).toEqual([]);
    await a.set('d', 'k', 's', -MINUTE, 'A');
    expect(await b.claimOverdue('B', 200, 10)).toHaveLength(1);
    await a.delete('d');
    expect(await ownerOf('d')).toBeUndefined();
  });

  it('gives each overdue deadline to exactly one of two pools claiming at once', async () => {
    await clear();
    const ids = Array.from({ length: 300 }, (_, i) => `race-${i}`);
    await Promise.all(ids.map((id, i) => a.set(id, 'k', id, -MINUTE - i, 'gone')));
    const drain = async (repo: PgDeadlineRepository, owner: string) => {
      const got: string[] = [];
      for (;;) {
        const batch = await repo.claimOverdue(owner, 1000, 7);
        if (batch.length === 0) return got;
        got.push(...batch.map((d) => d.id));
      }
    };
    const [byA, byB] = await Promise.all([drain(a, 'A'), drain(b, 'B')]);
    expect([...byA, ...byB].sort()).toEqual([...ids].sort());
    expect(byA.filter((id) => byB.includes(id))).toEqual([]);
    for (const id of byA.slice(0, 5)) expect(await ownerOf(id)).toBe('A');
    for (const id of byB.slice(0, 5)) expect(await ownerOf(id)).toBe('B');
  });

  it('skips, without waiting, the rows another claimer holds locked', async () => {
    await clear();
    for (let i = 0; i < 4; i++) await a.set(`held-${i}`, 'k', `s-${i}`, -MINUTE - i * 1000, 'gone');
    // A's claim stays uncommitted: its rows are locked until it ends. B must get the others at once.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let claimedByA: string[] = [];
    const aDone = dbs[0]!.transaction(async () => {
      claimedByA = (await a.claimOverdue('A', 1000, 2)).map((d) => d.id);
      await held;
    });
    while (claimedByA.length === 0) await sleep(10);
    const started = Date.now();
    const claimedByB = (await b.claimOverdue('B', 1000, 10)).map((d) => d.id);
    expect(Date.now() - started).toBeLessThan(1000);
    release();
    await aDone;
    expect(claimedByA).toEqual(['held-3', 'held-2']);
    expect(claimedByB).toEqual(['held-1', 'held-0']);
  });
});

describe('SQLite deadlines', () => {
  it('keeps none: there is no other instance to take over from', async () => {
    const dir = tempDir('postern-deadlines-');
    const store = new SqliteStore(openDatabase(dir));
    try {
      await store.deadlines.set('d', 'k', 's', -MINUTE, store.instanceId);
      expect(await store.deadlines.claimOverdue(store.instanceId, 0, 10)).toEqual([]);
      await store.deadlines.delete('d');
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
