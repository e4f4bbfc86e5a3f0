/**
 * PostgreSQL's keeping of the edge sessions `find` answered (repositories/posture-record-queries.ts), under the
 * rules of cross-instance-caches.ts, so that an agent's request for a session it holds reads nothing: kept by
 * API session, only what was read outside a transaction while listening; every delete and re-key announces
 * the API sessions it touched, and every instance forgets them on hearing it. A create announces nothing: only
 * sessions found are kept, and a second session made by a race is never the one `find` answers (the oldest).
 * An API session's end cascades to its edge sessions unannounced, which is harmless: authentication refuses
 * that API session before its edge sessions are looked up, and its entries age out of the bounded map.
 * A backend-specific part because SQLite's (one process owns the file) needs none of this.
 */
import type { PolicyType } from '../../model.js';
import type { EdgeSession } from '../posture-repository.js';
import type { FoundSessions } from '../repositories/posture-record-queries.js';
import type { Sql } from '../sql/statement.js';
import { CACHE_KINDS, type CrossInstanceCaches } from './cross-instance-caches.js';

/** The cache's kind, as the instances announce it: entries are forgotten by API session id. */
const KIND = CACHE_KINDS.edgeSessions;
/** API sessions whose found edge sessions are kept, at most (the least recently asked go first). */
const CACHED_API_SESSIONS = 10_000;

const keyOf = (serviceId: string, type: PolicyType) => `${serviceId}\u0000${type}`;

export class FoundEdgeSessions implements FoundSessions {
  private readonly found = new Map<string, Map<string, EdgeSession>>();

  constructor(private readonly caches: CrossInstanceCaches) {
    caches.register(KIND, (apiSessionId) => {
      if (apiSessionId === undefined) this.found.clear();
      else this.found.delete(apiSessionId);
    });
  }

  get(apiSessionId: string, serviceId: string, type: PolicyType): EdgeSession | undefined {
    if (this.caches.readable(KIND) === undefined) return undefined;
    const mine = this.found.get(apiSessionId);
    const cached = mine?.get(keyOf(serviceId, type));
    if (cached) {
      // Most recently asked last: the first in the map is the one to go.
      this.found.delete(apiSessionId);
      this.found.set(apiSessionId, mine!);
    }
    return cached;
  }

  reading(): number | undefined {
    return this.caches.readable(KIND);
  }

  keep(from: number | undefined, s: EdgeSession): void {
    if (!this.caches.mayKeep(KIND, from)) return;
    let mine = this.found.get(s.apiSessionId);
    if (!mine) {
      if (this.found.size >= CACHED_API_SESSIONS) this.found.delete(this.found.keys().next().value!);
      this.found.set(s.apiSessionId, (mine = new Map()));
    }
    mine.set(keyOf(s.serviceId, s.type), s);
  }

  created(): void {}

  *touched(apiSessionIds: readonly string[]): Sql<void> {
    if (apiSessionIds.length > 0) yield* this.caches.announced(KIND, [...new Set(apiSessionIds)]);
  }

  clear(): void {
    this.found.clear();
  }
}
