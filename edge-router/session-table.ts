/**
 * What the router knows, as the controller last told it: the sessions it may carry (by the SHA-256 of their
 * token: the router never stores a token), each service's `host.v1` target, and the live streams of each
 * session, so a revocation can cut them at once.
 */
import { createHash } from 'node:crypto';
import {
  MAX_STREAMS_PER_IDENTITY,
  MAX_STREAMS_PER_SESSION,
  type RouterServiceTarget,
  type RouterSession,
} from '../src/api/data-plane.js';

/** Something carrying a user's bytes that can be cut. */
export interface LiveStream {
  /** ends the stream; its owner gives its slot back (the function `open` returned) as it ends */
  cut(reason: string): void;
}

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export class SessionTable {
  private readonly byTokenHash = new Map<string, RouterSession>();
  private readonly byId = new Map<string, RouterSession>();
  private readonly targets = new Map<string, RouterServiceTarget>();
  private readonly streams = new Map<string, Set<LiveStream>>();
  /** the same live streams by identity, for the per-identity cap */
  private readonly identityStreams = new Map<string, Set<LiveStream>>();

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

  /**
   * Takes a stream slot for the session, before anything is dialed (so parallel opens cannot overshoot):
   * returns the function that gives it back (call it when the stream ends), or the cap it would pass.
   */
  open(
    session: RouterSession,
    stream: LiveStream,
  ): (() => void) | 'SESSION_STREAM_LIMIT' | 'IDENTITY_STREAM_LIMIT' {
    const own = this.streams.get(session.id);
    if ((own?.size ?? 0) >= MAX_STREAMS_PER_SESSION) return 'SESSION_STREAM_LIMIT';
    const identity = this.identityStreams.get(session.identityId);
    if ((identity?.size ?? 0) >= MAX_STREAMS_PER_IDENTITY) return 'IDENTITY_STREAM_LIMIT';
    setIn(this.streams, session.id, stream);
    setIn(this.identityStreams, session.identityId, stream);
    return () => {
      deleteFrom(this.streams, session.id, stream);
      deleteFrom(this.identityStreams, session.identityId, stream);
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

function setIn(map: Map<string, Set<LiveStream>>, key: string, stream: LiveStream): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(stream);
}

function deleteFrom(map: Map<string, Set<LiveStream>>, key: string, stream: LiveStream): void {
  const set = map.get(key);
  set?.delete(stream);
  if (set?.size === 0) map.delete(key);
}
