import { assertAccount, type CredentialStore } from './credential-store.js';

/** In-memory store for tests of modules that need a CredentialStore; nothing survives the process. */
export class MemoryCredentialStore implements CredentialStore {
  private readonly secrets = new Map<string, string>();

  constructor(initial: Record<string, string> = {}) {
    for (const [account, secret] of Object.entries(initial)) this.secrets.set(account, secret);
  }

  async get(account: string): Promise<string | undefined> {
    assertAccount(account);
    return this.secrets.get(account);
  }

  async set(account: string, secret: string): Promise<void> {
    assertAccount(account);
    if (typeof secret !== 'string') throw new TypeError('credential secret must be a string');
    this.secrets.set(account, secret);
  }

  async delete(account: string): Promise<boolean> {
    assertAccount(account);
    return this.secrets.delete(account);
  }

  /** Accounts currently held, for assertions in tests. */
  accounts(): string[] {
    return [...this.secrets.keys()].sort();
  }
}
