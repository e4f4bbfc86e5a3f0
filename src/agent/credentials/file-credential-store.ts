/**
 * For a machine without a keychain: secrets in a JSON file readable only by its owner (0600), so the CLI
 * keeps one API session between commands instead of signing in (and asking for a TOTP code) on each. Only
 * the accounts it is given are kept: the CLI gives it the session token and an enrolled device's private key
 * (which has nowhere else to live), never the password, which stays out of files (a later sign-in takes
 * POSTERN_PASSWORD or asks).
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { assertAccount, CredentialStoreError, type CredentialStore } from './credential-store.js';

export class FileCredentialStore implements CredentialStore {
  constructor(
    readonly path: string,
    private readonly keptAccounts: readonly string[],
  ) {}

  async get(account: string): Promise<string | undefined> {
    assertAccount(account);
    return this.read()[account];
  }

  async set(account: string, secret: string): Promise<void> {
    assertAccount(account);
    if (typeof secret !== 'string') throw new TypeError('credential secret must be a string');
    if (!this.keptAccounts.includes(account)) return;
    this.write({ ...this.read(), [account]: secret }, 'set', account);
  }

  async delete(account: string): Promise<boolean> {
    assertAccount(account);
    const all = this.read();
    if (!(account in all)) return false;
    delete all[account];
    this.write(all, 'delete', account);
    return true;
  }

  private read(): Record<string, string> {
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.path, 'utf8'));
      if (typeof parsed !== 'object' || parsed === null) return {};
      return Object.fromEntries(Object.entries(parsed).filter(([, v]) => typeof v === 'string')) as Record<
        string,
        string
      >;
    } catch {
      return {};
    }
  }

  /** Written whole to a private temporary file and renamed over: never half a file, never readable by others. */
  private write(all: Record<string, string>, operation: 'set' | 'delete', account: string): void {
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      const temporary = `${this.path}.${process.pid}.tmp`;
      writeFileSync(temporary, JSON.stringify(all), { mode: 0o600 });
      chmodSync(temporary, 0o600);
      renameSync(temporary, this.path);
    } catch (error) {
      throw new CredentialStoreError(operation, account, (error as Error).message);
    }
  }
}

/**
 * The keychain, and the file when the keychain cannot be used here (no Secret Service, say): the first
 * keychain failure switches to the file for the rest of the process, with one warning.
 *
 * A keychain that cannot be used does not always say so at once: without a D-Bus session the first read of
 * a process answers "nothing stored" and only later calls fail. So a read the keychain answers with nothing
 * also looks in the file (where an earlier process that met the failure kept the secret), and a delete clears
 * both, so a sign-out never leaves a secret behind in the other.
 */
export class KeychainOrFile implements CredentialStore {
  private usingFile = false;

  constructor(
    private readonly keychain: CredentialStore,
    private readonly file: FileCredentialStore,
    private readonly warn: (text: string) => void,
  ) {}

  get = async (account: string) =>
    (await this.call((store) => store.get(account))) ?? (this.usingFile ? undefined : this.file.get(account));

  set = (account: string, secret: string) => this.call((store) => store.set(account, secret));

  delete = async (account: string) => {
    const removed = await this.call((store) => store.delete(account));
    const alsoFromFile = this.usingFile ? false : await this.file.delete(account);
    return removed || alsoFromFile;
  };

  private async call<T>(operation: (store: CredentialStore) => Promise<T>): Promise<T> {
    if (!this.usingFile) {
      try {
        return await operation(this.keychain);
      } catch (error) {
        if (!(error instanceof CredentialStoreError)) throw error;
        this.usingFile = true;
        this.warn(
          `no usable keychain (${error.message}); the session (and an enrolled device's key) is kept in ${this.file.path} (mode 0600)`,
        );
      }
    }
    return operation(this.file);
  }
}
