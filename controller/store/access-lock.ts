/**
 * One identity's access decisions and revocations happen one at a time, on every instance: a new edge session
 * is decided and created under this key, and the posture engine re-evaluates (and revokes) under it too. So a
 * revocation committed while a session was being decided either is seen by that decision, or runs after the
 * session is committed and finds it. Called inside the transaction; SQLite's write lock already serializes,
 * PostgreSQL takes an advisory transaction lock.
 */
import type { Store } from './repository.js';

export const serializeAccessOf = (store: Store, identityId: string): Promise<void> =>
  store.serializeOn(`access:${identityId}`);
