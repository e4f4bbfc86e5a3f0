import type { ClaimedDeadline, SyncDeadlineRepository } from '../deadline-repository.js';

/**
 * SQLite's deadlines: none are kept. One controller owns a SQLite file (the data folder's lock), so there is
 * no other instance to take over from, and after a restart the posture engine's start-up pass re-arms every
 * timer from the stored posture data.
 *
 * This is why deadlines are not written once over the shared SQL layer (store/sql/) as the other repositories
 * are: the SQL would port (`Dialect.msFromNow` gives both databases the due-time arithmetic), but SQLite has
 * no `deadlines` table and should not gain one, since a row only ever serves another instance's takeover.
 * PostgreSQL's repository (postgres/deadline-repository.ts) is the only one with statements.
 */
export class SqliteDeadlineRepository implements SyncDeadlineRepository {
  set(): void {}

  delete(): void {}

  claimOverdue(): ClaimedDeadline[] {
    return [];
  }
}
