/**
 * Live API sessions kept in memory by token hash (every authenticated request looks its session up), with
 * the least recently read dropped first beyond a bound. Only the keeping: when an entry may be answered or
 * must be forgotten is the owner's rule (SQLite's in api-session-queries.ts, PostgreSQL's cross-instance ones
 * in postgres/api-session-repository.ts).
 */
import type { ApiSession } from '../../model.js';
import { withFields } from '../../../src/common/with-fields.js';

/** Live API sessions kept in memory, at most this many. */
export const CACHED_SESSIONS = 10_000;

/**
 * A copy whose fields the caller may set without touching what the cache holds (signing in with a TOTP sets
 * `isMfaComplete`, a request moves `lastActivityAt`). Only the top level is copied: every request pays for
 * this, and no caller changes what a field holds (a date, the info objects, the config types) in place.
 */
export const copyOf = (s: ApiSession): ApiSession => ({ ...s });

export class ApiSessionCache {
  private readonly byTokenHash = new Map<string, ApiSession>();
  private readonly tokenHashById = new Map<string, string>();

  /** The session held under this token hash (not a copy), now the most recently read. */
  byToken(tokenHash: string): ApiSession | undefined {
    const cached = this.byTokenHash.get(tokenHash);
    if (cached) {
      // Most recently read last, so eviction takes the sessions idle the longest.
      this.byTokenHash.delete(tokenHash);
      this.byTokenHash.set(tokenHash, cached);
    }
    return cached;
  }

  /** The session held with this id (not a copy). */
  byId(id: string): ApiSession | undefined {
    const tokenHash = this.tokenHashById.get(id);
    return tokenHash === undefined ? undefined : this.byTokenHash.get(tokenHash);
  }

  remember(tokenHash: string, session: ApiSession): void {
    this.forget(session.id);
    if (this.byTokenHash.size >= CACHED_SESSIONS) {
      const oldest = this.byTokenHash.keys().next().value!;
      this.tokenHashById.delete(this.byTokenHash.get(oldest)!.id);
      this.byTokenHash.delete(oldest);
    }
    this.byTokenHash.set(tokenHash, session);
    this.tokenHashById.set(session.id, tokenHash);
  }

  /** The held session's last activity is now `at` (nothing when it is not held). */
  moveActivity(id: string, at: Date): void {
    const tokenHash = this.tokenHashById.get(id);
    const cached = tokenHash === undefined ? undefined : this.byTokenHash.get(tokenHash);
    if (cached) this.byTokenHash.set(tokenHash!, withFields(cached, { lastActivityAt: at }));
  }

  forget(id: string): void {
    const tokenHash = this.tokenHashById.get(id);
    if (tokenHash === undefined) return;
    this.tokenHashById.delete(id);
    this.byTokenHash.delete(tokenHash);
  }

  clear(): void {
    this.byTokenHash.clear();
    this.tokenHashById.clear();
  }
}
