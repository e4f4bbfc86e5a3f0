/**
 * How many agent event streams one API session and one identity may hold open on this controller. Each
 * stream holds a socket (a file descriptor) for as long as the client likes, so without a cap one stolen API
 * session could hold them all (992 streams took every descriptor of a 1,024 limit: `/version` and the
 * administrator's sign-in failed for everyone).
 *
 * - 4 per API session: the agent and the desktop app open one stream per API session; while one reconnects,
 *   the old stream may linger until the controller notices it closed, so two are normal and four is headroom.
 * - 16 per identity: a person signed in on a few devices (desktop app, CLI agent, a second machine), each
 *   with its own API session and one or two streams.
 * - and none once the process's descriptors near their limit (FdBudget): a reserve stays for sign-in, the
 *   management API and `/version`.
 *
 * Counted per controller process (descriptors are per process); with several instances each applies it.
 */
import { ApiError } from '../../api-error.js';
import type { FdBudget } from '../../http/fd-budget.js';
import type { RefusalLog } from '../../http/refusal-log.js';

export const EVENT_STREAMS_PER_API_SESSION = 4;
export const EVENT_STREAMS_PER_IDENTITY = 16;

export class EventStreamCaps {
  private readonly bySession = new Map<string, number>();
  private readonly byIdentity = new Map<string, number>();

  constructor(
    private readonly budget: FdBudget,
    private readonly refusals: RefusalLog,
  ) {}

  /** Takes a place for a new stream, or throws the refusal (429 over a cap, 503 near the descriptor limit). */
  admit(apiSessionId: string, identityId: string): () => void {
    const inSession = this.bySession.get(apiSessionId) ?? 0;
    const ofIdentity = this.byIdentity.get(identityId) ?? 0;
    if (inSession >= EVENT_STREAMS_PER_API_SESSION)
      throw this.refuse('api-session', identityId, EVENT_STREAMS_PER_API_SESSION, 'This API session');
    if (ofIdentity >= EVENT_STREAMS_PER_IDENTITY)
      throw this.refuse('identity', identityId, EVENT_STREAMS_PER_IDENTITY, 'This identity');
    if (!this.budget.allows('event-stream')) {
      this.refusals.refused(
        'event-streams-descriptors',
        'event stream refused: file descriptors near the limit',
        {
          open: this.budget.open(),
          limit: this.budget.limit,
        },
      );
      throw new ApiError(
        503,
        'SERVER_BUSY',
        'The controller is keeping its remaining connections for sign-in and administration; try again later',
        { field: 'events', reason: 'file descriptors near the limit' },
        { 'retry-after': '30' },
      );
    }
    this.bySession.set(apiSessionId, inSession + 1);
    this.byIdentity.set(identityId, ofIdentity + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      decrement(this.bySession, apiSessionId);
      decrement(this.byIdentity, identityId);
    };
  }

  private refuse(scope: 'api-session' | 'identity', identityId: string, cap: number, who: string): ApiError {
    this.refusals.refused(`event-streams-per-${scope}`, `event stream refused: ${scope} cap of ${cap}`, {
      identityId,
    });
    return new ApiError(
      429,
      'TOO_MANY_EVENT_STREAMS',
      `${who} already has ${cap} event streams open, the most it may; close one first`,
      { field: 'events', reason: `at most ${cap} open event streams per ${scope}`, value: cap },
      { 'retry-after': '5' },
    );
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const n = (counts.get(key) ?? 0) - 1;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
