/**
 * API sessions in PostgreSQL: the shared statements (repositories/api-session-queries.ts, built without its
 * cache) behind a cache kept under the cross-instance rules (cross-instance-caches.ts). A wrapper of its own
 * rather than a cache inside the shared class: its writes announce themselves to the other instances, which
 * is a promise of its own and no statement a repository step could yield.
 *
 * Every authenticated request looks its session up twice, so sessions read are kept by token hash. Another
 * controller sharing the database may update or end a session at any time: updates and deletes are announced
 * and heard. Its last activity is not announced (it moves every few seconds per session); a cached session
 * whose last activity is older than REREAD_IDLE_MS is read again instead, so an instance never judges a
 * session idle, and ends it, on a time another instance has moved.
 */
import type { ApiSession } from '../../model.js';
import type { ApiSessionRepository, ListQuery, Page } from '../repository.js';
import type { PgDatabase } from './pg-database.js';
import { CACHE_KINDS, CrossInstanceCaches } from './cross-instance-caches.js';
import { ApiSessionCache, copyOf } from '../repositories/api-session-cache.js';
import { ApiSessionQueries } from '../repositories/api-session-queries.js';
import { POSTGRES } from '../sql/dialect.js';
import { postgresFace } from '../sql/faces.js';

/** The cache's kind, as the instances announce it. */
const KIND = CACHE_KINDS.apiSessions;
/**
 * A cached session whose last activity is older than this is read again: another instance may have moved it
 * (it touches every 5 s a session it serves, auth/api-sessions.ts), and only the database knows by how much.
 */
const REREAD_IDLE_MS = 15_000;

const fresh = (s: ApiSession | undefined): s is ApiSession =>
  s !== undefined && Date.now() - s.lastActivityAt.getTime() < REREAD_IDLE_MS;

export class PgApiSessionRepository implements ApiSessionRepository {
  private readonly cache = new ApiSessionCache();
  private readonly sql;

  /** Without `caches` (which nothing feeds) every read goes to the database. */
  constructor(
    private readonly db: PgDatabase,
    private readonly caches: CrossInstanceCaches = new CrossInstanceCaches(db, ''),
  ) {
    this.sql = postgresFace(new ApiSessionQueries(POSTGRES), db);
    caches.register(KIND, (id) => {
      if (id === undefined) this.cache.clear();
      else this.cache.forget(id);
    });
  }

  async getByTokenHash(tokenHash: string): Promise<ApiSession | undefined> {
    const generation = this.caches.readable(KIND);
    if (generation !== undefined) {
      const cached = this.cache.byToken(tokenHash);
      if (fresh(cached)) return copyOf(cached);
    }
    // the shared statements, built without a cache: a read of the database, and a copy of its own
    const session = await this.sql.getByTokenHash(tokenHash);
    if (!session) return undefined;
    if (this.caches.mayKeep(KIND, generation)) this.cache.remember(tokenHash, session);
    return copyOf(session);
  }

  /** From the cache when held (inside a transaction, as every read there, from the database). */
  async get(id: string): Promise<ApiSession | undefined> {
    if (this.caches.readable(KIND) !== undefined) {
      const cached = this.cache.byId(id);
      if (fresh(cached)) return copyOf(cached);
    }
    return this.sql.get(id);
  }

  clearCache(): void {
    this.cache.clear();
  }

  list(query: ListQuery): Promise<Page<ApiSession>> {
    return this.sql.list(query);
  }

  listByIdentity(identityId: string): Promise<ApiSession[]> {
    return this.sql.listByIdentity(identityId);
  }

  listByAuthenticator(authenticatorId: string): Promise<ApiSession[]> {
    return this.sql.listByAuthenticator(authenticatorId);
  }

  listByIdentities(identityIds: readonly string[]): Promise<ApiSession[]> {
    return this.sql.listByIdentities(identityIds);
  }

  create(s: ApiSession, tokenHash: string): Promise<void> {
    return this.sql.create(s, tokenHash);
  }

  async update(s: ApiSession): Promise<void> {
    await this.sql.update(s);
    await this.caches.changed(KIND, [s.id]);
  }

  /** Not announced (see the top): the cached copy here moves with it, others read again when it looks old. */
  async touch(id: string, at: Date): Promise<void> {
    await this.sql.touch(id, at);
    if (this.db.inTransaction()) this.cache.forget(id);
    else this.cache.moveActivity(id, at);
  }

  /** Its posture row goes with it (the cascade): the posture data cached of its identity is dropped too. */
  async delete(id: string): Promise<boolean> {
    const identityId = await this.sql.end(id);
    await this.caches.changed(KIND, [id]);
    if (identityId !== undefined) await this.caches.changed(CACHE_KINDS.postureData, [identityId]);
    return identityId !== undefined;
  }

  /** Every session's end is announced once (of two sweeps at once, each answers only what it removed). */
  async deleteIdleSince(cutoff: Date): Promise<{ id: string; identityId: string }[]> {
    const removed = await this.sql.deleteIdleSince(cutoff);
    if (removed.length > 0) {
      await this.caches.changed(
        KIND,
        removed.map((r) => r.id),
      );
      await this.caches.changed(CACHE_KINDS.postureData, [...new Set(removed.map((r) => r.identityId))]);
    }
    return removed;
  }
}
