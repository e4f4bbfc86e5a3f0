/**
 * The agent's standing sign-in through an identity provider, for a running agent (the desktop app, `run`):
 * the provider's tokens kept in the credential store, refreshed before the access token expires, and every
 * refresh followed by a new `ext-jwt` sign-in at the controller (so the controller sees a token at most one
 * refresh old: claims mapped to attributes follow, and a user disabled at the provider is noticed). A refresh
 * the provider refuses ends the session, its tunnels with it, and says why through `onEnded`. It is also the
 * session manager's way to sign in again after a restart or a forgotten API session.
 */
import type { CredentialStore } from '../credentials/credential-store.js';
import type { EdgeApi } from '../client/edge-api.js';
import type { SessionManager, SessionStatus } from '../session/session-manager.js';
import { errorMessage, silentLogger, type AgentLogger } from '../../common/logger.js';
import { OidcRelyingParty, ProviderRefusedError, type ProviderTokens } from './oidc-relying-party.js';
import type { ClientExternalJwtSigner } from './provider-signer.js';
import { signInWithBrowser, type UrlOpener } from './provider-sign-in.js';
import { signOutAtProvider } from './provider-sign-out.js';
import { ProviderTokenRefresher, REFRESH_MIN_DELAY_MS } from './provider-token-refresher.js';
import { ProviderTokenVault } from './provider-token-vault.js';

export interface ProviderSessionOptions {
  api: EdgeApi;
  sessions: SessionManager;
  store: CredentialStore;
  controllerUrl: string;
  logger?: AgentLogger;
  /** the provider refused to renew the sign-in: the session is over; `message` says why, for the user */
  onEnded: (message: string) => void | Promise<void>;
}

/** What the user is told when the provider refuses a refresh: who refused, and what to do. */
export function refusedMessage(providerName: string, error: ProviderRefusedError): string {
  return (
    `${providerName} refused to renew your sign-in (${error.code}): your account may have been disabled or ` +
    `signed out there. You are signed out of Postern; sign in with ${providerName} again.`
  );
}

export class ProviderSession {
  readonly vault: ProviderTokenVault;
  private rp: OidcRelyingParty | undefined;
  private refresher: ProviderTokenRefresher | undefined;
  private running = false;
  private readonly log: AgentLogger;

  constructor(private readonly options: ProviderSessionOptions) {
    this.vault = new ProviderTokenVault(options.store);
    this.log = options.logger ?? silentLogger;
  }

  /** The provider this session signs in with, while there is one. */
  get signerName(): string | undefined {
    return this.rp?.signer.name;
  }

  /** Signs in through the system browser (authorization code + PKCE, loopback redirect). */
  async signInWithBrowser(signer: ClientExternalJwtSigner, open: UrlOpener): Promise<SessionStatus> {
    const rp = await OidcRelyingParty.discover(signer);
    return this.adopt(rp, await signInWithBrowser(rp, open));
  }

  /** Takes tokens a sign-in just got (browser or device grant): stores them and signs in at the controller. */
  async adopt(rp: OidcRelyingParty, tokens: ProviderTokens): Promise<SessionStatus> {
    await this.vault.save(this.options.controllerUrl, tokens);
    this.use(rp, tokens);
    return this.options.sessions.loginWithProviderToken(rp.tokenForController(tokens));
  }

  /**
   * After a restart: the stored tokens (if any) become the session manager's way to sign in again. Resolves
   * whether there were any for a provider this controller still offers.
   */
  async load(): Promise<boolean> {
    const tokens = await this.vault.load(this.options.controllerUrl);
    if (!tokens) return false;
    const signer = (await this.options.api.listExternalJwtSigners()).find((s) => s.id === tokens.signerId);
    if (!signer) {
      this.log.info('the identity provider of the stored sign-in is no longer offered; forgetting it');
      await this.vault.clear();
      return false;
    }
    this.use(await OidcRelyingParty.discover(signer), tokens);
    return true;
  }

  /** Keeps the tokens fresh (and the controller's session renewed) while the agent runs. */
  start(): void {
    this.running = true;
    this.refresher?.start();
  }

  stop(): void {
    this.running = false;
    this.refresher?.stop();
  }

  /**
   * Ends the provider side: the refresh token revoked where the provider can, the stored tokens removed;
   * resolves with the provider's end-session URL to open, where it has one.
   */
  async signOut(): Promise<URL | undefined> {
    this.forget();
    const { api, controllerUrl } = this.options;
    return signOutAtProvider(api, this.vault, controllerUrl, this.log);
  }

  private use(rp: OidcRelyingParty, tokens: ProviderTokens): void {
    this.refresher?.stop();
    this.rp = rp;
    this.refresher = new ProviderTokenRefresher({
      rp,
      tokens,
      logger: this.log,
      save: (fresh) => this.vault.save(this.options.controllerUrl, fresh),
      onRefreshed: (fresh) => this.renew(rp.tokenForController(fresh)),
      onRefused: (error) => this.refused(rp.signer.name, error),
    });
    this.options.sessions.setProviderSignIn(() => this.freshToken());
    if (this.running) this.refresher.start();
  }

  /** A token for the controller; refreshed first when it has expired or is about to. */
  private async freshToken(): Promise<string> {
    const { rp, refresher } = this;
    if (!rp || !refresher) throw new ProviderRefusedError('signed_out');
    const expiresAt = refresher.current().expiresAt;
    if (expiresAt !== undefined && expiresAt - Date.now() < REFRESH_MIN_DELAY_MS) {
      if (!(await refresher.refreshNow())) throw new ProviderRefusedError('refresh_refused');
    }
    return rp.tokenForController(refresher.current());
  }

  /** The refreshed token signs in again, only while the agent's session came from the provider. */
  private async renew(token: string): Promise<void> {
    const { sessions } = this.options;
    const status = sessions.status();
    if (status.state === 'signed-out' || status.signInMethod !== 'provider') return;
    try {
      await sessions.renewWithProviderToken(token);
    } catch (error) {
      // The controller may be out of reach: the current session goes on; the next refresh tries again.
      this.log.warn(`signing in again with the refreshed provider token failed: ${errorMessage(error)}`);
    }
  }

  private async refused(providerName: string, error: ProviderRefusedError): Promise<void> {
    this.forget();
    await this.vault.clear();
    await this.options.onEnded(refusedMessage(providerName, error));
  }

  private forget(): void {
    this.refresher?.stop();
    this.refresher = undefined;
    this.rp = undefined;
    this.options.sessions.setProviderSignIn(undefined);
  }
}
