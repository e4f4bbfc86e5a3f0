import type { ClaimedDeadline, SyncDeadlineRepository } from '../deadline-repository.js';

/**
 * SQLite's deadlines: none are kept. One controller owns a SQLite file (the data folder's lock), so there is
 * no other instance to take over from, and after a restart the posture engine's start-up pass re-arms every
 * timer from the stored posture data.
 */
export class SqliteDeadlineRepository implements SyncDeadlineRepository {
  set(): void {}

  delete(): void {}

  claimOverdue(): ClaimedDeadline[] {
    return [];
  }
}
