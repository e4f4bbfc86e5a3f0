/** Identities, one code for both databases: the document repository and two questions only the store asks. */
import type { Identity } from '../../model.js';
import { ENTITY_KINDS } from '../entity-kinds.js';
import type { Dialect } from '../sql/dialect.js';
import { one, type Sql } from '../sql/statement.js';
import type { DocumentCache } from './document-cache.js';
import { DOCUMENT_SQL } from './document-filter.js';
import { DocumentQueries } from './document-queries.js';

export class IdentityQueries extends DocumentQueries<Identity> {
  /** the document's authPolicyId and externalId, the latter as its unique index reads it */
  private readonly authPolicyId: string;
  private readonly externalId: string;

  constructor(dialect: Dialect, cache?: DocumentCache<Identity>) {
    super(dialect, ENTITY_KINDS.identities, cache);
    const sql = DOCUMENT_SQL[dialect.name];
    this.authPolicyId = sql.field('identities', 'authPolicyId', 'string');
    this.externalId = sql.field('identities', 'externalId', 'string');
  }

  /** How many identities sign in under this auth policy (an auth policy in use cannot be deleted). */
  *countWithAuthPolicy(authPolicyId: string): Sql<number> {
    const row = yield* one<{ n: number }>(
      `SELECT CAST(count(*) AS INTEGER) AS n FROM identities WHERE ${this.authPolicyId} = ?`,
      [authPolicyId],
    );
    return Number(row!.n);
  }

  /** The identity another identity provider knows by this subject (unique). */
  *byExternalId(externalId: string): Sql<Identity | undefined> {
    const row = yield* one<{ id: string }>(`SELECT id FROM identities WHERE ${this.externalId} = ?`, [
      externalId,
    ]);
    return row ? yield* this.get(row.id) : undefined;
  }
}
