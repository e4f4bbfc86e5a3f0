/** Questions about identities that no repository method asks, in PostgreSQL (SQLite: sqlite-repositories.ts). */
import type { PgDatabase } from './pg-database.js';
import type { Identity } from '../../model.js';
import type { PgDocumentRepository } from './document-repository.js';

/** How many identities sign in under this auth policy (an auth policy in use cannot be deleted). */
export async function countIdentitiesWithAuthPolicy(db: PgDatabase, authPolicyId: string): Promise<number> {
  const row = await db.one<{ n: number }>(
    `SELECT count(*)::int AS n FROM identities WHERE doc->>'authPolicyId' = ?`,
    [authPolicyId],
  );
  return row!.n;
}

/** The identity another identity provider knows by this subject (unique: migration 13). */
export async function identityByExternalId(
  db: PgDatabase,
  identities: PgDocumentRepository<Identity>,
  externalId: string,
): Promise<Identity | undefined> {
  const row = await db.one<{ id: string }>(
    `SELECT id FROM identities WHERE (doc->>'externalId') COLLATE "C" = ?`,
    [externalId],
  );
  return row ? identities.get(row.id) : undefined;
}
