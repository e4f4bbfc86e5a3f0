/**
 * Identities' posture data kept in memory: every posture report and session request loads its identity's.
 * At most CACHED_IDENTITIES of them, the least recently read dropped first. Only the keeping: when an entry
 * may be answered, kept or must be forgotten is each store's rule (sqlite/posture-repository.ts,
 * postgres/posture-repository.ts). Entries are handed out as they are (read-only by their type): every change
 * replaces an entry with a new one, so what a caller holds stays as it was when loaded.
 */
import type { IdentityPostureData } from '../../posture-model.js';

/** Identities whose posture data is kept in memory, at most. */
export const CACHED_IDENTITIES = 5_000;

export class PostureDataCache {
  private readonly entries = new Map<string, IdentityPostureData>();

  /** The identity's entry, now the most recently read. */
  get(identityId: string): IdentityPostureData | undefined {
    const cached = this.entries.get(identityId);
    if (cached) {
      // Most recently read last, so eviction takes the identities read the longest ago.
      this.entries.delete(identityId);
      this.entries.set(identityId, cached);
    }
    return cached;
  }

  /** The identity's entry, its place in the order unchanged. */
  peek(identityId: string): IdentityPostureData | undefined {
    return this.entries.get(identityId);
  }

  /** Keeps `data` as the most recently read; answers the entry dropped to make room, if one was. */
  keep(identityId: string, data: IdentityPostureData): IdentityPostureData | undefined {
    let dropped: IdentityPostureData | undefined;
    if (!this.entries.delete(identityId) && this.entries.size >= CACHED_IDENTITIES) {
      const oldest = this.entries.keys().next().value!;
      dropped = this.entries.get(oldest);
      this.entries.delete(oldest);
    }
    this.entries.set(identityId, data);
    return dropped;
  }

  /** Replaces a held entry, its place in the order unchanged (nothing when none is held). */
  replace(identityId: string, data: IdentityPostureData): void {
    if (this.entries.has(identityId)) this.entries.set(identityId, data);
  }

  /** Drops the identity's entry; answers it, if there was one. */
  forget(identityId: string): IdentityPostureData | undefined {
    const cached = this.entries.get(identityId);
    this.entries.delete(identityId);
    return cached;
  }

  clear(): void {
    this.entries.clear();
  }
}
