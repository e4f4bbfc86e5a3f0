/**
 * The tests' own PostgreSQL server (test/helpers/postgres-server.ts) started for real: it answers, its
 * databases are separate from one another, and stop() leaves neither a listening port nor its folder behind.
 */
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';

async function query(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The error code of a TCP connection attempt to this machine's port, or 'connected'. */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe('the tests’ PostgreSQL server', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  });
  // Stopped by the last test; this is for when that one never got there.
  afterAll(() => server?.stop());

  it('answers on its shared database, and is PostgreSQL', async () => {
    const { rows } = await query(server.url, 'SELECT version() AS version, current_database() AS database');
    expect(rows[0].version).toMatch(/^PostgreSQL \d+/);
    expect(rows[0].database).toBe('postern');
  });

  it('gives each createDatabase() call a database of its own', async () => {
    const [first, second] = await Promise.all([server.createDatabase(), server.createDatabase()]);
    expect(first).not.toBe(second);
    await query(first!, 'CREATE TABLE only_in_first (id int)');
    const tables = (url: string) =>
      query(url, "SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'only_in_first'");
    expect((await tables(first!)).rows[0].n).toBe(1);
    expect((await tables(second!)).rows[0].n).toBe(0);
  });

  it('after stop(), refuses connections on its port and its folder is gone', async () => {
    expect(existsSync(server.folder)).toBe(true);
    await server.stop();
    expect(await tryConnect(server.port)).toBe('ECONNREFUSED');
    expect(existsSync(server.folder)).toBe(false);
  });
});
