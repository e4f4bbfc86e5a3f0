import type { ControllerConfig } from '../config.js';
import { PostgresBackend } from './postgres-backend.js';
import { SqliteBackend } from './sqlite-backend.js';
import type { StoreBackend } from './store-backend.js';

/**
 * The backend the configuration names: PostgreSQL when `--database` gives a URL, else the SQLite file in the
 * data folder (which must exist). The one place that chooses; everything else asks `StoreBackend`.
 */
export async function openBackend(
  config: Pick<ControllerConfig, 'dataDir' | 'database'>,
): Promise<StoreBackend> {
  return config.database ? PostgresBackend.open(config.database) : SqliteBackend.open(config.dataDir);
}
