/**
 * Where the agent keeps secrets (session tokens, the password it signs in with). A port so the core
 * never knows whether the OS keychain, or a map in a test, holds them. The file store
 * (file-credential-store.ts, for machines without a keychain) is given the session token only, never the password.
 */
export interface CredentialStore {
  /** The secret stored for `account`, or `undefined` when there is none. */
  get(account: string): Promise<string | undefined>;
  /** Stores or replaces the secret for `account`. */
  set(account: string, secret: string): Promise<void>;
  /** Removes the secret; resolves `true` if one was removed, `false` if there was none. */
  delete(account: string): Promise<boolean>;
}

/**
 * A store failure. The message names the operation and account and carries the platform's reason,
 * never the secret, so it is safe to log.
 */
export class CredentialStoreError extends Error {
  constructor(
    readonly operation: 'get' | 'set' | 'delete',
    readonly account: string,
    reason: string,
  ) {
    super(`credential store ${operation} failed for account '${account}': ${reason}`);
    this.name = 'CredentialStoreError';
  }
}

export function assertAccount(account: string): void {
  if (typeof account !== 'string' || account.length === 0) {
    throw new TypeError('credential account must be a non-empty string');
  }
}
