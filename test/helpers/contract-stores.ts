/**
 * The two sides every store contract test opens (test/integration/pg-*-repositor*.test.ts): a SQLite store in
 * a folder of its own, and one fresh PostgreSQL database as two controllers see it, each through its own pool.
 */
import { rmSync } from 'node:fs';
import pg from 'pg';
import { openDatabase } from '../../controller/store/database.js';
import { migratePostgres } from '../../controller/store/postgres/migrate.js';
import { PgDatabase } from '../../controller/store/postgres/pg-database.js';
import { SqliteStore } from '../../controller/store/sqlite-store.js';
import { tempDir } from './controller.js';
import { endPool } from './pg-test-tools.js';
import type { PostgresServer } from './postgres-server.js';

/** A SQLite store in a new temporary folder; `close` closes it and removes the folder. */
export function sqliteContractStore(prefix: string): { store: SqliteStore; close(): Promise<void> } {
  const dir = tempDir(prefix);
  const store = new SqliteStore(openDatabase(dir));
  return {
    store,
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A new, migrated database on `server` as two controllers sharing it see it: `db` and `rivalDb` on pools of
 * their own, so a race between them is a race between connections; `close` ends both pools.
 */
export async function twoPostgresViews(
  server: PostgresServer,
): Promise<{ db: PgDatabase; rivalDb: PgDatabase; close(): Promise<void> }> {
  const url = await server.createDatabase();
  const pools = [new pg.Pool({ connectionString: url }), new pg.Pool({ connectionString: url })] as const;
  await migratePostgres(pools[0]);
  return {
    db: new PgDatabase(pools[0]),
    rivalDb: new PgDatabase(pools[1]),
    close: async () => {
      await Promise.all(pools.map(endPool));
    },
  };
}
