/**
 * What an access-outbox row means on the controller's event bus, shared by the SQLite delivery
 * (access-outbox.ts) and the PostgreSQL one (pg-access-outbox.ts): both tables hold these columns, written by
 * the same triggers, so both publish exactly the same events for the same rows.
 */
import type { ControllerContext } from '../platform/context.js';

/** The columns delivery reads; each database adds its own ordering columns (seq, xact). */
export interface OutboxRow {
  kind: 'session.added' | 'session.removed' | 'access.changed';
  entity_id: string;
  identity_id: string;
  api_session_id: string | null;
  at: string;
}

/**
 * Publishes rows in their order. Consecutive rows of one kind go out as one event, so 1,000 revocations are
 * one message per router.
 */
export function publishOutboxRows(
  ctx: Pick<ControllerContext, 'events' | 'log'>,
  rows: readonly OutboxRow[],
): void {
  const { events, log } = ctx;
  let i = 0;
  while (i < rows.length) {
    const kind = rows[i]!.kind;
    let j = i;
    while (j < rows.length && rows[j]!.kind === kind) j++;
    const run = rows.slice(i, j);
    i = j;
    try {
      if (kind === 'session.added')
        events.emit(
          'sessions.added',
          run.map((r) => r.entity_id),
        );
      else if (kind === 'session.removed')
        events.emit(
          'sessions.removed',
          run.map((r) => ({
            id: r.entity_id,
            identityId: r.identity_id,
            apiSessionId: r.api_session_id ?? '',
          })),
        );
      else for (const r of run) events.emit('access.changed', r.identity_id, new Date(r.at));
    } catch (err) {
      // A listener's failure must not stop the others' deliveries.
      log.error({ err, kind }, 'an access event listener failed');
    }
  }
}
