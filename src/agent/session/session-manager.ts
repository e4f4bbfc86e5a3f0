/**
 * The API session: password login with envInfo/sdkInfo, or an enrolled device's client certificate, the
 * TOTP either may owe (answered through the prompt layer), resuming from the token in the keychain, signing
 * in again when the controller forgets the session, and logout. Every change of state or of API session is published, so the reporter can resend
 * everything to a new session.
 */
import { isTotpQuery, type CurrentApiSession, type EnvInfo, type SdkInfo } from '../../api/auth.js';
import { ERROR_CODES } from '../../api/envelopes.js';
import { isControllerError } from '../../controller-client/controller-error.js';
import type { EdgeApi } from '../client/edge-api.js';
import { Listeners } from '../../common/listeners.js';
import { errorMessage, silentLogger, type AgentLogger } from '../../common/logger.js';
import { envInfo as deviceEnvInfo, sdkInfo as agentSdkInfo } from './client-info.js';
import type { CredentialVault } from './credential-vault.js';

/** `needs-totp`: signed in, but the session owes a code; `needs-enrollment`: it owes one the user cannot give yet. */
export type SessionState = 'signed-out' | 'needs-totp' | 'needs-enrollment' | 'active';

/** How the agent signs in: a username and password, or this device's enrolled certificate. */
export type SignInMethod = 'password' | 'certificate' | 'provider';

export interface SessionStatus {
  state: SessionState;
  controllerUrl: string;
  username?: string;
  /** how this session was made, or (resumed from a stored token) how the agent would sign in again */
  signInMethod?: SignInMethod;
  apiSessionId?: string;
  identityId?: string;
  identityName?: string;
}

export interface LoginCredentials {
  username: string;
  password: string;
}

/** Asks for a TOTP and submits it; resolves whether the session accepted one. */
export type LoginTotpRequester = () => Promise<boolean>;

export interface SessionManagerOptions {
  api: EdgeApi;
  vault: CredentialVault;
  controllerUrl: string;
  requestTotp: LoginTotpRequester;
  logger?: AgentLogger;
  envInfo?: EnvInfo;
  sdkInfo?: SdkInfo;
  /**
   * The client presents an enrolled device certificate: sign in with it when no password login is stored
   * (a stored login was asked for explicitly, so it wins; a fallback from the environment does not).
   */
  certificate?: boolean;
}

/** No usable credentials: the user has to run `login` (or the app show its sign-in screen). */
export class NotSignedInError extends Error {
  constructor(message = 'not signed in') {
    super(message);
    this.name = 'NotSignedInError';
  }
}

export class SessionManager {
  readonly changes = new Listeners<SessionStatus>();
  private credentials: LoginCredentials | undefined;
  /** a fresh identity provider token, while the agent holds a provider sign-in (sso/provider-session.ts) */
  private providerToken: (() => Promise<string>) | undefined;
  private madeWith: SignInMethod | undefined;
  private current: CurrentApiSession | undefined;
  private state: SessionState = 'signed-out';
  private readonly log: AgentLogger;

  constructor(private readonly options: SessionManagerOptions) {
    this.log = options.logger ?? silentLogger;
  }

  status(): SessionStatus {
    return {
      state: this.state,
      controllerUrl: this.options.controllerUrl,
      username: this.credentials?.username,
      signInMethod: this.madeWith ?? this.signInMethod(),
      apiSessionId: this.current?.id,
      identityId: this.current?.identityId,
      identityName: this.current?.identity?.name,
    };
  }

  /** Signs in with a password. `remember` keeps the login in the vault for later runs and re-logins. */
  async login(credentials: LoginCredentials, remember = true): Promise<SessionStatus> {
    const { api, vault, controllerUrl } = this.options;
    const session = await api.authenticate({
      ...credentials,
      envInfo: this.options.envInfo ?? deviceEnvInfo(),
      sdkInfo: this.options.sdkInfo ?? agentSdkInfo(),
    });
    this.credentials = credentials;
    this.madeWith = 'password';
    if (remember) await vault.saveLogin({ controllerUrl, ...credentials });
    await vault.saveToken(controllerUrl, session.token);
    this.log.info(`signed in to ${controllerUrl} as ${credentials.username}`);
    return this.settle(session);
  }

  /** Signs in with the device certificate the client presents; a TOTP owed is asked for as after a password. */
  async loginWithCertificate(): Promise<SessionStatus> {
    const { api, vault, controllerUrl } = this.options;
    const session = await api.authenticateCert({
      envInfo: this.options.envInfo ?? deviceEnvInfo(),
      sdkInfo: this.options.sdkInfo ?? agentSdkInfo(),
    });
    this.madeWith = 'certificate';
    await vault.saveToken(controllerUrl, session.token);
    this.log.info(`signed in to ${controllerUrl} with this device's certificate`);
    return this.settle(session);
  }

  /**
   * Signs in with a token from an identity provider (an external JWT signer). The provider's tokens are kept
   * by the caller (sso/provider-sign-in.ts), which refreshes them; a TOTP owed is asked for as after a password.
   */
  async loginWithProviderToken(providerToken: string): Promise<SessionStatus> {
    const { api, vault, controllerUrl } = this.options;
    const session = await api.authenticateExtJwt(providerToken, {
      envInfo: this.options.envInfo ?? deviceEnvInfo(),
      sdkInfo: this.options.sdkInfo ?? agentSdkInfo(),
    });
    this.madeWith = 'provider';
    await vault.saveToken(controllerUrl, session.token);
    this.log.info(`signed in to ${controllerUrl} through the identity provider`);
    return this.settle(session);
  }

  /** How to sign in again through the identity provider (a fresh token), or undefined to stop doing so. */
  setProviderSignIn(freshToken: (() => Promise<string>) | undefined): void {
    this.providerToken = freshToken;
  }

  /**
   * A refreshed provider token makes a new API session, and the one it replaces is ended (not left to time
   * out): the controller checks the new token, so a disabled user or changed groups are seen at once.
   */
  async renewWithProviderToken(providerToken: string): Promise<SessionStatus> {
    const { api } = this.options;
    const previous = api.client.sessionToken;
    const status = await this.loginWithProviderToken(providerToken);
    if (previous && previous !== api.client.sessionToken)
      await api
        .endSession(previous)
        .catch((error: unknown) =>
          this.log.debug(`ending the replaced session failed: ${errorMessage(error)}`),
        );
    return status;
  }

  /**
   * Continues where the last run stopped: the stored token if the controller still knows it, else the
   * stored login, else the identity provider's stored sign-in, else the device certificate, else `fallback`
   * (for example POSTERN_PASSWORD on a box without a keychain).
   */
  async resume(fallback?: LoginCredentials): Promise<SessionStatus> {
    const { api, vault, controllerUrl } = this.options;
    const saved = await vault.loadLogin(controllerUrl);
    if (saved) this.credentials = { username: saved.username, password: saved.password };
    // A provider sign-in the user made wins over a fallback from the environment, as a certificate does.
    else if (fallback && !this.options.certificate && !this.providerToken) this.credentials = fallback;
    const token = await vault.loadToken(controllerUrl);
    if (token) {
      api.client.setSessionToken(token);
      try {
        return await this.settle(await api.currentApiSession(false));
      } catch (error) {
        if (!isControllerError(error) || error.status !== 401) throw error;
        this.log.info('the stored API session has expired; signing in again');
        api.client.setSessionToken(undefined);
        await vault.clearToken();
      }
    }
    if (this.credentials) return this.login(this.credentials, saved !== undefined);
    if (this.providerToken) return this.loginWithProviderToken(await this.providerToken());
    if (this.options.certificate) return this.loginWithCertificate();
    throw new NotSignedInError();
  }

  /**
   * The client's hook after a 401. A session that still exists but owes a code is not replaced (that would
   * only make another partial session); the user is asked for the code instead. A gone session is replaced
   * by a new login, when credentials are known.
   */
  async reauthenticate(): Promise<boolean> {
    const { api } = this.options;
    try {
      const status = await this.settle(await api.currentApiSession(false));
      return status.state === 'active';
    } catch (error) {
      if (!isControllerError(error) || error.status !== 401) throw error;
    }
    if (!this.credentials && !this.providerToken && !this.options.certificate) {
      this.setState('signed-out', undefined);
      return false;
    }
    try {
      const status = this.credentials
        ? await this.login(this.credentials, false)
        : this.providerToken
          ? await this.loginWithProviderToken(await this.providerToken())
          : await this.loginWithCertificate();
      return status.state === 'active';
    } catch (error) {
      if (isControllerError(error, ERROR_CODES.invalidAuth)) {
        this.credentials = undefined;
        this.setState('signed-out', undefined);
      }
      throw error;
    }
  }

  /** Re-reads the session (after a code was accepted elsewhere, e.g. enrollment verification). */
  async refresh(): Promise<SessionStatus> {
    const session = await this.options.api.currentApiSession();
    this.apply(session);
    return this.status();
  }

  /** Ends the API session; `forget` also removes the stored login. */
  async logout(forget = true): Promise<void> {
    const { api, vault, controllerUrl } = this.options;
    // A fresh process (the CLI's `logout`) has not loaded the stored token yet; end that session too.
    if (!api.client.sessionToken) api.client.setSessionToken(await vault.loadToken(controllerUrl));
    if (api.client.sessionToken) {
      await api
        .logout()
        .catch((error: unknown) => this.log.debug(`logout request failed: ${errorMessage(error)}`));
    }
    api.client.setSessionToken(undefined);
    await vault.clearToken();
    if (forget) {
      await vault.clearLogin();
      this.credentials = undefined;
    }
    this.madeWith = undefined;
    this.setState('signed-out', undefined);
  }

  /** How a sign-in would be made now. */
  private signInMethod(): SignInMethod | undefined {
    if (this.credentials) return 'password';
    if (this.providerToken) return 'provider';
    return this.options.certificate ? 'certificate' : undefined;
  }

  /** Applies a session and, if it owes a TOTP the user can give, asks for it (once). */
  private async settle(session: CurrentApiSession): Promise<SessionStatus> {
    this.apply(session);
    if (this.state !== 'needs-totp') return this.status();
    if (await this.options.requestTotp()) this.apply(await this.options.api.currentApiSession(false));
    return this.status();
  }

  private apply(session: CurrentApiSession): void {
    const query = (session.authQueries ?? []).find(isTotpQuery);
    let state: SessionState = 'active';
    if (query) state = query.isTotpEnrolled === false ? 'needs-enrollment' : 'needs-totp';
    this.setState(state, session);
  }

  private setState(state: SessionState, session: CurrentApiSession | undefined): void {
    const changed = state !== this.state || session?.id !== this.current?.id;
    this.state = state;
    this.current = session;
    if (changed) this.changes.emit(this.status());
  }
}
