/**
 * The admin session `login` keeps for later commands, and only that: an API session token (never the
 * password) in the OS keychain, or where there is none in a file only its owner can read (0600), the agent's
 * own credential stores. It is tied to the controller it came from, with the trust it was signed in with,
 * so the token is never sent to another controller or over a connection trusted differently by accident.
 */
import { join } from 'node:path';
import type { CredentialStore } from '../agent/credentials/credential-store.js';
import { FileCredentialStore, KeychainOrFile } from '../agent/credentials/file-credential-store.js';
import { KeyringCredentialStore } from '../agent/credentials/keyring-credential-store.js';
import { MemoryCredentialStore } from '../agent/credentials/memory-credential-store.js';
import { sameController } from '../agent/session/credential-vault.js';
import { defaultConfigDir } from '../agent/settings/agent-settings.js';
import type { ConnectionArgs } from './admin-args.js';

/** The keychain account (service `postern`, beside the agent's) and the file's name in the config folder. */
export const ADMIN_SESSION_ACCOUNT = 'admin-session';
export const ADMIN_SESSION_FILE = 'admin-session.json';

export interface KeptSessionRecord {
  controllerUrl: string;
  token: string;
  username: string;
  caFile?: string;
  controllerFingerprint?: string;
}

export class KeptSession {
  constructor(private readonly store: CredentialStore) {}

  static open(connection: ConnectionArgs, warn: (text: string) => void): KeptSession {
    if (connection.credentialStore === 'memory') return new KeptSession(new MemoryCredentialStore());
    const file = new FileCredentialStore(
      join(connection.configDir ?? defaultConfigDir(), ADMIN_SESSION_FILE),
      [ADMIN_SESSION_ACCOUNT],
    );
    if (connection.credentialStore === 'file') return new KeptSession(file);
    return new KeptSession(new KeychainOrFile(new KeyringCredentialStore(), file, warn));
  }

  async load(): Promise<KeptSessionRecord | undefined> {
    const text = await this.store.get(ADMIN_SESSION_ACCOUNT);
    if (!text) return undefined;
    try {
      const record = JSON.parse(text) as KeptSessionRecord;
      const complete = [record.controllerUrl, record.token, record.username].every(
        (v) => typeof v === 'string',
      );
      return complete ? record : undefined;
    } catch {
      return undefined;
    }
  }

  /** The kept session for this controller; none for another one. */
  async loadFor(controllerUrl: string): Promise<KeptSessionRecord | undefined> {
    const record = await this.load();
    return record && sameController(record.controllerUrl, controllerUrl) ? record : undefined;
  }

  save(record: KeptSessionRecord): Promise<void> {
    return this.store.set(ADMIN_SESSION_ACCOUNT, JSON.stringify(record));
  }

  async clear(): Promise<void> {
    await this.store.delete(ADMIN_SESSION_ACCOUNT);
  }
}
