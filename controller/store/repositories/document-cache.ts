/**
 * The entities of one document kind kept in memory (document-queries.ts): by id, the least recently read
 * going first when bounded, and with no bound also the whole table in name order once an unfiltered list has
 * read all of it (edge routers and their policies are listed whole for every session).
 *
 * When memory may answer is the gate's to say: on SQLite always (one process owns the file; every write goes
 * through the repository, which forgets what it touches, and the store clears every cache when a transaction
 * fails); on PostgreSQL by the cross-instance rules (postgres/cross-instance-caches.ts), whose announcements
 * reach `forget`. Entities are handed out as kept: callers do not change what they get.
 */
import type { Entity } from '../../model.js';

export interface CacheGate {
  /** undefined: read the database and keep nothing; else the generation to hand `mayKeep` with what was read */
  readable(): number | undefined;
  /** whether an answer read from the database, starting at `generation`, may be kept */
  mayKeep(generation: number | undefined): boolean;
}

/** SQLite's gate: memory always answers. */
export const ALWAYS: CacheGate = { readable: () => 0, mayKeep: () => true };

export class DocumentCache<T extends Entity> {
  private readonly byId = new Map<string, T>();
  /** the whole table in name order (unbounded caches only) */
  private whole: T[] | undefined;
  /** what else the repository keeps of this kind, forgotten with it (service policies' role lookups) */
  private readonly dependents: (() => void)[] = [];

  constructor(
    /** at most this many entities; Infinity also keeps the whole table */
    readonly limit: number,
    readonly gate: CacheGate = ALWAYS,
  ) {}

  /** the entity with this id, most recently read from now on */
  get(id: string): T | undefined {
    const cached = this.byId.get(id);
    if (cached && this.limit !== Infinity) {
      this.byId.delete(id);
      this.byId.set(id, cached);
    }
    return cached;
  }

  /** the entity with this id, its place in the eviction order unchanged (a bulk read: no reordering cost) */
  peek(id: string): T | undefined {
    return this.byId.get(id);
  }

  keep(entity: T): void {
    this.byId.delete(entity.id);
    if (this.byId.size >= this.limit) this.byId.delete(this.byId.keys().next().value!);
    this.byId.set(entity.id, entity);
  }

  get everything(): readonly T[] | undefined {
    return this.whole;
  }

  keepEverything(entities: readonly T[]): void {
    if (this.limit === Infinity) this.whole = entities.slice();
  }

  /** Runs `fn` whenever this cache forgets anything. */
  onForget(fn: () => void): void {
    this.dependents.push(fn);
  }

  /** Forgets one entity (and the whole list), or everything (`undefined`). */
  forget(id: string | undefined): void {
    if (id === undefined) this.byId.clear();
    else this.byId.delete(id);
    this.whole = undefined;
    for (const fn of this.dependents) fn();
  }
}
