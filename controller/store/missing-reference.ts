/**
 * A write refused because a row it depends on is gone (PostgreSQL's foreign key violation, SQLite's
 * `FOREIGN KEY constraint failed`, which the migrations' triggers raise in the same words): for a caller, the
 * thing it referred to ended while it was being written, not a fault of the controller.
 */
export function isMissingReference(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === '23503' || (typeof message === 'string' && message.startsWith('FOREIGN KEY constraint failed'))
  );
}
