/**
 * Unique indexes on a field inside entity documents (SQLite migration 18, PostgreSQL migration 13): the
 * database decides, so two writers at once cannot both take the value, and its refusal becomes the same
 * UniqueViolation a taken name is, naming the field.
 */
import { UniqueViolation } from './repository.js';

/** index name → the document field it keeps unique */
const UNIQUE_DOCUMENT_INDEXES: Readonly<Record<string, string>> = {
  // another identity provider's subject names one identity (OpenZiti's nullable unique externalId)
  identities_external_id_unique: 'externalId',
};

/** The UniqueViolation a database error stands for, if it is one of these indexes refusing a write. */
export function documentUniqueViolation(err: unknown, entity: object): UniqueViolation | undefined {
  const { code, constraint, message } = err as { code?: unknown; constraint?: unknown; message?: unknown };
  let index: string | undefined;
  // PostgreSQL: unique_violation, with the index's name
  if (code === '23505' && typeof constraint === 'string') index = constraint;
  // SQLite names an expression index in its message
  else if (code === 'SQLITE_CONSTRAINT_UNIQUE' && typeof message === 'string')
    index = /index '([^']+)'/.exec(message)?.[1];
  const field = index && UNIQUE_DOCUMENT_INDEXES[index];
  if (!field) return undefined;
  return new UniqueViolation(field, (entity as Record<string, unknown>)[field]);
}
