/**
 * What the router knows, as the controller last told it: the sessions it may carry (by the SHA-256 of their
 * token: the router never stores a token), each service's `host.v1` target, and the live streams of each
 * session, so a revocation can cut them at once.
 */
import { createHash } from 'node:crypto';
import type { RouterServiceTarget, RouterSession } from '../src/api/data-plane.js';

/** Something carrying a user's bytes that can be cut. */
export interface LiveStream {
  cut(reason: string): void;
}

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export class SessionTable {
  private readonly byTokenHash = new Map<string, RouterSession>();
  private readonly byId = new Map<string, RouterSession>();
  private readonly targets = new Map<string, RouterServiceTarget>();
  private readonly streams = new Map<string, Set<LiveStream>>();

  get sessionCount(): number {
    return this.byId.size;
  }

  get streamCount(): number {
    let n = 0;
    for (const set of this.streams.values()) n += set.size;
    return n;
  }

  session(token: string): RouterSession | undefined {
    return this.byTokenHash.get(hashToken(token));
  }

  target(serviceId: string): RouterServiceTarget | undefined {
    return this.targets.get(serviceId);
  }

  isLive(sessionId: string): boolean {
    return this.byId.has(sessionId);
  }

  /** Replaces everything: streams of sessions the snapshot no longer has are cut. */
  replace(sessions: readonly RouterSession[], services: readonly RouterServiceTarget[]): number {
    const keep = new Set(sessions.map((s) => s.id));
    const gone = [...this.byId.keys()].filter((id) => !keep.has(id));
    this.byTokenHash.clear();
    this.byId.clear();
    for (const s of sessions) this.add(s);
    this.targets.clear();
    for (const t of services) this.targets.set(t.serviceId, t);
    return this.remove(gone, 'session no longer valid (controller resync)');
  }

  add(session: RouterSession): void {
    this.byTokenHash.set(session.tokenHash, session);
    this.byId.set(session.id, session);
  }

  setTarget(target: RouterServiceTarget): void {
    this.targets.set(target.serviceId, target);
  }

  /** Forgets the sessions and cuts their streams; returns how many streams were cut. */
  remove(sessionIds: readonly string[], reason: string): number {
    let cut = 0;
    for (const id of sessionIds) {
      const session = this.byId.get(id);
      if (session) {
        this.byId.delete(id);
        this.byTokenHash.delete(session.tokenHash);
      }
      const live = this.streams.get(id);
      if (!live) continue;
      this.streams.delete(id);
      for (const stream of live) {
        stream.cut(reason);
        cut++;
      }
    }
    return cut;
  }

  /** Tracks a stream under its session; the returned function forgets it (call when it ends). */
  track(sessionId: string, stream: LiveStream): () => void {
    let set = this.streams.get(sessionId);
    if (!set) this.streams.set(sessionId, (set = new Set()));
    set.add(stream);
    return () => {
      const current = this.streams.get(sessionId);
      current?.delete(stream);
      if (current?.size === 0) this.streams.delete(sessionId);
    };
  }

  /** Cuts every stream (fail closed), keeping what is known for when the controller returns. */
  cutAll(reason: string): number {
    const ids = [...this.streams.keys()];
    let cut = 0;
    for (const id of ids) {
      const live = this.streams.get(id);
      this.streams.delete(id);
      for (const stream of live ?? []) {
        stream.cut(reason);
        cut++;
      }
    }
    return cut;
  }
}
