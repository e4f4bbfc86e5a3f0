/**
 * The identity provider's tokens in the agent's credential store (the OS keychain, or the 0600 file where no
 * keychain works), one JSON value tied to the controller URL like the session token, so a refresh token is
 * never used for another controller's signer.
 */
import type { CredentialStore } from '../credentials/credential-store.js';
import { parseStoredRecord } from '../credentials/stored-record.js';
import { ACCOUNTS, sameController } from '../session/credential-vault.js';
import type { ProviderTokens } from './oidc-relying-party.js';

interface SavedProviderTokens extends ProviderTokens {
  controllerUrl: string;
}

export class ProviderTokenVault {
  constructor(private readonly store: CredentialStore) {}

  async load(controllerUrl: string): Promise<ProviderTokens | undefined> {
    const saved = parseStoredRecord<SavedProviderTokens>(await this.store.get(ACCOUNTS.sso), [
      'controllerUrl',
      'signerId',
      'accessToken',
    ]);
    if (!saved || !sameController(saved.controllerUrl, controllerUrl)) return undefined;
    const { controllerUrl: _, ...tokens } = saved;
    return tokens;
  }

  async save(controllerUrl: string, tokens: ProviderTokens): Promise<void> {
    await this.store.set(
      ACCOUNTS.sso,
      JSON.stringify({ controllerUrl, ...tokens } satisfies SavedProviderTokens),
    );
  }

  async clear(): Promise<void> {
    await this.store.delete(ACCOUNTS.sso);
  }
}
