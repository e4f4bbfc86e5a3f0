/**
 * Deadlines persisted for controller instances that share one database: a moment something must happen (an
 * API session's posture result changing by itself) written where the other instances can see it, so that if
 * the instance that armed it stops, another one still acts on it.
 *
 * Due times are given relative to now (`dueInMs`) and kept on the DATABASE's clock: the instances' clocks may
 * differ from each other (and tests replace the controller's clock), the database's is the one they share.
 * An instance still fires its own deadlines on its own exact in-memory timers; these rows are only for
 * taking over what an instance that stopped can no longer fire.
 */
import type { Async } from './async.js';

/** What a claim hands over: the deadline and whom it is about; `kind` says what to do. */
export interface ClaimedDeadline {
  id: string;
  kind: string;
  subject: string;
}

export interface SyncDeadlineRepository {
  /** creates or replaces deadline `id`, due `dueInMs` from now on the database's clock, unclaimed */
  set(id: string, kind: string, subject: string, dueInMs: number, owner: string): void;
  delete(id: string): void;
  /**
   * Claims up to `limit` deadlines overdue by more than `overdueByMs` (their owner should have fired them by
   * then) and not claimed in the last `overdueByMs` (a claimer busy with them keeps them that long; one that
   * stopped loses them after it). Earliest due first. Of racing claimers, each deadline goes to exactly one.
   */
  claimOverdue(owner: string, overdueByMs: number, limit: number): ClaimedDeadline[];
}

export type DeadlineRepository = Async<SyncDeadlineRepository>;
