/**
 * Vitest global setup for the PostgreSQL run of the suite: one real server for the whole run, started before
 * the workers (which inherit its URL through the environment) and stopped after them.
 */
import { startPostgres } from '../helpers/postgres-server.js';
import { POSTGRES_ADMIN_URL_VARIABLE } from '../helpers/test-database.js';

export default async function setup(): Promise<() => Promise<void>> {
  const server = await startPostgres();
  process.env[POSTGRES_ADMIN_URL_VARIABLE] = server.adminUrl;
  return async () => {
    delete process.env[POSTGRES_ADMIN_URL_VARIABLE];
    await server.stop();
  };
}
