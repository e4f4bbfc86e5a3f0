/**
 * `audit list --follow`: asks the controller for newer events every 2 s and prints each as it comes, until
 * Ctrl-C (or SIGTERM). An event is printed once: each poll reads from a little before the newest event seen
 * (an event's moment is taken when its transaction starts, so one committed a moment late may carry an earlier
 * time than one already printed), and the ids printed within that margin are remembered. A controller that
 * goes away (a restart, an upgrade) is said once on standard error, and following carries on when it is back.
 */
import { errorMessage } from '../common/logger.js';
import { ControllerError } from '../controller-client/controller-error.js';
import type { AuditEventView } from '../api/audit-text.js';
import type { Envelope } from '../api/envelopes.js';
import { MANAGEMENT_API_PREFIX } from '../api/paths.js';
import type { AdminContext } from './admin-session.js';
import type { ManagementApi } from './management-api.js';
import { json } from './output.js';
import { auditLine, eventNames } from './audit-output.js';

export const FOLLOW_EVERY_MS = 2_000;
/** How far before the newest event seen each poll reads again: later commits of earlier moments. */
const LATE_COMMIT_MS = 10_000;
const PAGE = 500;

const key = (e: AuditEventView) => [Date.parse(e.createdAt), e.id] as const;
/** (createdAt, id) order, the export's and the follow's. */
const before = (a: readonly [number, string], b: readonly [number, string]) =>
  a[0] < b[0] || (a[0] === b[0] && a[1] <= b[1]);

export async function followAudit(
  ctx: AdminContext,
  api: ManagementApi,
  filter: string,
  shown: readonly AuditEventView[],
  /** the list left older events out: those are history, never "new" */
  limited: boolean,
): Promise<void> {
  const warn = (text: string) => process.stderr.write(`postern-admin: ${text}\n`);
  const seen = new Map<string, number>(shown.map((e) => [e.id, Date.parse(e.createdAt)]));
  const floor = limited && shown[0] ? key(shown[0]) : undefined;
  let newest = shown.length ? Math.max(...seen.values()) : undefined;
  let lost: string | undefined;

  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const onSignal = () => stop();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  /** Every event from `since` on, oldest first, a page at a time (after the last one's (createdAt, id)). */
  async function* since(from: number | undefined): AsyncGenerator<AuditEventView> {
    let last: AuditEventView | undefined;
    for (;;) {
      const terms = [
        filter && `(${filter})`,
        from !== undefined && `createdAt >= datetime(${new Date(from).toISOString()})`,
        last &&
          `(createdAt > datetime(${last.createdAt}) or (createdAt = datetime(${last.createdAt}) and id > ${JSON.stringify(last.id)}))`,
      ].filter(Boolean);
      const page: Envelope<AuditEventView[]> = await api.client.requestEnvelope<AuditEventView[]>(
        'GET',
        '/audit-events',
        {
          prefix: MANAGEMENT_API_PREFIX,
          // The poll is the retry: a controller away is said once here, not at every attempt.
          retry: false,
          query: { filter: `${terms.join(' and ')} sort by createdAt asc, id asc`.trim(), limit: PAGE },
        },
      );
      yield* page.data;
      if (page.data.length < PAGE) return;
      last = page.data.at(-1);
    }
  }

  async function poll(): Promise<void> {
    const fresh: AuditEventView[] = [];
    for await (const e of since(newest === undefined ? undefined : newest - LATE_COMMIT_MS)) {
      if (seen.has(e.id) || (floor && before(key(e), floor))) continue;
      fresh.push(e);
    }
    if (fresh.length === 0) return;
    const names = ctx.args.json ? new Map<string, string>() : await eventNames(api, fresh);
    for (const e of fresh) {
      ctx.print(ctx.args.json ? json(e) : auditLine(e, names));
      seen.set(e.id, Date.parse(e.createdAt));
      newest = Math.max(newest ?? 0, Date.parse(e.createdAt));
    }
    // Only the margin's ids can come again.
    for (const [id, at] of seen) if (at < newest! - 2 * LATE_COMMIT_MS) seen.delete(id);
  }

  try {
    for (;;) {
      const tick = new Promise<'tick'>((resolve) => setTimeout(() => resolve('tick'), FOLLOW_EVERY_MS));
      if ((await Promise.race([tick, stopped.then(() => 'stop' as const)])) === 'stop') return;
      try {
        await poll();
        if (lost) {
          warn(`the controller at ${api.client.baseUrl} answers again; following`);
          lost = undefined;
        }
      } catch (error) {
        const away = error instanceof ControllerError && (error.isUnreachable || error.status >= 500);
        if (!away) throw error;
        if (!lost)
          warn(
            `lost the controller at ${api.client.baseUrl} (${errorMessage(error)}); still following, ` +
              `trying every ${FOLLOW_EVERY_MS / 1000} s (Ctrl-C to stop)`,
          );
        lost = errorMessage(error);
      }
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
