import { AsyncEntry, type LinuxStore } from '@napi-rs/keyring';
import { assertAccount, CredentialStoreError, type CredentialStore } from './credential-store.js';

export const KEYRING_SERVICE = 'postern';

/** The part of `@napi-rs/keyring`'s AsyncEntry the store uses; tests can supply a fake. */
export interface KeyringEntry {
  getPassword(): Promise<string | null>;
  setPassword(password: string): Promise<void>;
  deleteCredential(): Promise<boolean>;
}

export type KeyringEntryFactory = (service: string, account: string) => KeyringEntry;

export interface KeyringCredentialStoreOptions {
  /** Secret Service / Keychain / Credential Manager service name. */
  service?: string;
  /**
   * Linux only: pin the store. Unset keeps the library's default, which uses the Secret Service and
   * falls back to the kernel keyring (memory only, lost at reboot) where there is none, so a headless
   * agent still works. `'secret-service'` refuses that fallback.
   */
  linuxStore?: LinuxStore;
  entryFactory?: KeyringEntryFactory;
}

/**
 * The OS keychain through @napi-rs/keyring: Secret Service (gnome-keyring, KWallet) on Linux, Keychain
 * on macOS, Credential Manager on Windows. The async entry is used because a Secret Service call is a
 * D-Bus round trip, and on a locked keyring it waits for the user; that must not block the event loop.
 */
export class KeyringCredentialStore implements CredentialStore {
  private readonly service: string;
  private readonly entryFactory: KeyringEntryFactory;

  constructor(options: KeyringCredentialStoreOptions = {}) {
    this.service = options.service ?? KEYRING_SERVICE;
    const linuxStore = options.linuxStore;
    this.entryFactory =
      options.entryFactory ??
      ((service, account) =>
        new AsyncEntry(service, account, linuxStore ? { linux: { store: linuxStore } } : undefined));
  }

  async get(account: string): Promise<string | undefined> {
    const password = await this.call('get', account, (entry) => entry.getPassword());
    return password ?? undefined;
  }

  async set(account: string, secret: string): Promise<void> {
    if (typeof secret !== 'string') throw new TypeError('credential secret must be a string');
    await this.call('set', account, (entry) => entry.setPassword(secret), secret);
  }

  async delete(account: string): Promise<boolean> {
    return this.call('delete', account, (entry) => entry.deleteCredential());
  }

  /**
   * Creating the entry can itself throw (a pinned store that is absent), so it happens inside the
   * same guard. Only the library's message is kept (not its cause chain), and the secret is cut out
   * of it should a platform ever echo it, so the error is always safe to log.
   */
  private async call<T>(
    operation: CredentialStoreError['operation'],
    account: string,
    action: (entry: KeyringEntry) => Promise<T>,
    secret?: string,
  ): Promise<T> {
    assertAccount(account);
    try {
      return await action(this.entryFactory(this.service, account));
    } catch (error) {
      let reason = error instanceof Error ? error.message : 'unknown error';
      if (secret) reason = reason.split(secret).join('[redacted]');
      throw new CredentialStoreError(operation, account, reason);
    }
  }
}
