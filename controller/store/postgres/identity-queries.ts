/** Questions about identities that no repository method asks, in PostgreSQL (SQLite: sqlite-repositories.ts). */
import type { PgDatabase } from './pg-database.js';

/** How many identities sign in under this auth policy (an auth policy in use cannot be deleted). */
export async function countIdentitiesWithAuthPolicy(db: PgDatabase, authPolicyId: string): Promise<number> {
  const row = await db.one<{ n: number }>(
    `SELECT count(*)::int AS n FROM identities WHERE doc->>'authPolicyId' = ?`,
    [authPolicyId],
  );
  return row!.n;
}
