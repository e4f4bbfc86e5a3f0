/**
 * A filtered range of the audit trail read for an export, oldest first, a page at a time: memory stays one
 * page whatever the range, and the export stops at a cap (docs/SECURITY.md). Pages follow each other by the
 * last row's (createdAt, id), not by offset, so a page never repeats or skips a row when older events are
 * pruned meanwhile, and a late page costs what the first did.
 *
 * `openAuditRange` reads the first page before answering: a filter the grammar refuses is a 400 before a
 * single byte of the export has been sent.
 */
import { ApiError } from '../api-error.js';
import { parseFilter } from '../store/filter/parser.js';
import type { Store } from '../store/repository.js';
import type { AuditEvent } from './audit-model.js';

/** The rows one export may carry; a larger range is exported in parts by createdAt (docs/SECURITY.md). */
export const AUDIT_EXPORT_MAX_ROWS = 100_000;
/** Rows read from the store at once (the management lists' page). */
export const AUDIT_EXPORT_PAGE = 500;

const ORDER = 'sort by createdAt asc, id asc';

export interface AuditRange {
  /** the events the filter matched when the export began */
  matching: number;
  /** whether the cap cuts the range short (`matching` is more than the cap) */
  truncated: boolean;
  events: AsyncGenerator<AuditEvent>;
}

/** A filter the export cannot take whole: its own order and paging would fight the export's. */
function refuseClauses(filter: string): void {
  const parsed = parseFilter(filter);
  const clause = parsed.sort.length ? 'sort by' : parsed.skip !== undefined ? 'skip' : undefined;
  const named = clause ?? (parsed.limit !== undefined ? 'limit' : undefined);
  if (named)
    throw new ApiError(400, 'INVALID_FILTER', `an export is read oldest first and whole: drop '${named}'`, {
      field: 'filter',
      reason: `'${named}' is not taken by an export (its order is createdAt ascending, its range the filter's)`,
      value: filter,
    });
}

/** After the row at (createdAt, id), in the export's order. */
const after = (last: AuditEvent): string => {
  const at = `datetime(${last.createdAt.toISOString()})`;
  return `(createdAt > ${at} or (createdAt = ${at} and id > ${JSON.stringify(last.id)}))`;
};

export async function openAuditRange(
  store: Store,
  filter: string | undefined,
  limits: { maxRows: number; pageSize: number } = {
    maxRows: AUDIT_EXPORT_MAX_ROWS,
    pageSize: AUDIT_EXPORT_PAGE,
  },
): Promise<AuditRange> {
  const predicate = filter?.trim() ? filter : undefined;
  if (predicate) refuseClauses(predicate);
  const pageAfter = (last: AuditEvent | undefined) => {
    const where = [predicate && `(${predicate})`, last && after(last)].filter(Boolean).join(' and ');
    const limit = Math.min(limits.pageSize, limits.maxRows);
    return store.auditEvents.list({ limit, offset: 0, filter: `${where} ${ORDER}`.trim() });
  };
  const first = await pageAfter(undefined);
  async function* events(): AsyncGenerator<AuditEvent> {
    let page = first;
    let sent = 0;
    for (;;) {
      for (const event of page.items) {
        if (sent === limits.maxRows) return;
        sent++;
        yield event;
      }
      if (page.items.length < Math.min(limits.pageSize, limits.maxRows) || sent === limits.maxRows) return;
      page = await pageAfter(page.items.at(-1));
    }
  }
  return { matching: first.totalCount, truncated: first.totalCount > limits.maxRows, events: events() };
}
