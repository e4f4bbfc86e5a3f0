/**
 * The agent's secrets in a CredentialStore (the OS keychain in production): the login it signs in again
 * with, and the current session token. Each is one JSON value under a fixed account of service `postern`,
 * tied to the controller URL so a token is never sent to a different controller.
 */
import type { CredentialStore } from '../credentials/credential-store.js';
import { parseStoredRecord } from '../credentials/stored-record.js';

/** `device`: the private key of this device's enrolled identity (see enrollment/device-identity.ts). */
/** `sso`: the identity provider's tokens (see sso/provider-token-vault.ts). */
export const ACCOUNTS = {
  login: 'agent-login',
  session: 'agent-session',
  device: 'agent-device',
  sso: 'agent-sso',
} as const;

export interface SavedLogin {
  controllerUrl: string;
  username: string;
  password: string;
}

interface SavedSession {
  controllerUrl: string;
  token: string;
}

/** Same controller when scheme, host, port and path match, whatever the trailing slash. */
export function sameController(a: string, b: string): boolean {
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}

export class CredentialVault {
  constructor(readonly store: CredentialStore) {}

  async loadLogin(controllerUrl?: string): Promise<SavedLogin | undefined> {
    const login = parseStoredRecord<SavedLogin>(await this.store.get(ACCOUNTS.login), [
      'controllerUrl',
      'username',
      'password',
    ]);
    if (!login || (controllerUrl && !sameController(login.controllerUrl, controllerUrl))) return undefined;
    return login;
  }

  async saveLogin(login: SavedLogin): Promise<void> {
    await this.store.set(ACCOUNTS.login, JSON.stringify(login));
  }

  async loadToken(controllerUrl: string): Promise<string | undefined> {
    const session = parseStoredRecord<SavedSession>(await this.store.get(ACCOUNTS.session), [
      'controllerUrl',
      'token',
    ]);
    return session && sameController(session.controllerUrl, controllerUrl) ? session.token : undefined;
  }

  async saveToken(controllerUrl: string, token: string): Promise<void> {
    await this.store.set(ACCOUNTS.session, JSON.stringify({ controllerUrl, token } satisfies SavedSession));
  }

  async clearToken(): Promise<void> {
    await this.store.delete(ACCOUNTS.session);
  }

  async clearLogin(): Promise<void> {
    await this.store.delete(ACCOUNTS.login);
  }
}
