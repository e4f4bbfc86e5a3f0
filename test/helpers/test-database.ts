/**
 * The store a test controller uses. By default SQLite in the controller's data folder. When the suite runs on
 * PostgreSQL (`POSTERN_TEST_DATABASE=postgres`, see test/setup/postgres-server.ts), each data folder gets its
 * own database on the suite's server, named after the folder: a controller restarted on the same folder finds
 * the same data, and two tests never share one.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { defaultConfig, type ControllerConfig } from '../../controller/config.js';

/** Set by the global setup to the PostgreSQL server's maintenance database URL. */
export const POSTGRES_ADMIN_URL_VARIABLE = 'POSTERN_TEST_PG_ADMIN_URL';
/**
 * Set to `postgres` in the PostgreSQL project's own environment (vitest.config.ts). The URL above is set in
 * the main process, which every project's workers inherit: the backend is chosen by this one.
 */
export const BACKEND_VARIABLE = 'POSTERN_TEST_BACKEND';

export const testBackend = (): 'sqlite' | 'postgres' =>
  process.env[BACKEND_VARIABLE] === 'postgres' && process.env[POSTGRES_ADMIN_URL_VARIABLE]
    ? 'postgres'
    : 'sqlite';

/** The `--database` URL for a controller on `dataDir`, or undefined on SQLite; creates the database once. */
export async function databaseFor(dataDir: string): Promise<string | undefined> {
  const admin = process.env[POSTGRES_ADMIN_URL_VARIABLE];
  if (testBackend() !== 'postgres' || !admin) return undefined;
  const name = `postern_${createHash('sha256').update(dataDir).digest('hex').slice(0, 24)}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } catch (err) {
    // 42P04: it exists already (a restart on the same folder).
    if ((err as { code?: string }).code !== '42P04') throw err;
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A test controller's configuration on `dataDir`: a free port, quiet logs, and the suite's backend. */
export async function testConfig(
  dataDir: string,
  extra: Partial<ControllerConfig> = {},
): Promise<ControllerConfig> {
  return {
    ...defaultConfig(dataDir),
    port: 0,
    logLevel: 'silent',
    database: await databaseFor(dataDir),
    ...extra,
  };
}
