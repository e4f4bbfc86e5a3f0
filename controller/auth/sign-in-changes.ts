/**
 * What an identity signs in with (its password login, certificate and outstanding enrollments) changes one
 * request at a time: each such write checks what exists first ("no password login yet", "no outstanding
 * enrollment of this method"), and on PostgreSQL two requests in parallel, on one instance or two, could both
 * pass the check. Called inside the transaction, before the check.
 */
import type { Store } from '../store/repository.js';

export const serializeSignInChanges = (store: Store, identityId: string): Promise<void> =>
  store.serializeOn(`sign-in:${identityId}`);
