/**
 * Keeps the provider's tokens fresh while the agent runs: refreshes a little before the access token expires
 * and stores the new tokens. A refresh the provider refuses (the user disabled or removed there, the grant
 * revoked) calls `onRefused`, which ends the agent's session the way a session the controller ends does (its
 * tunnels are cut). A failure to reach the provider is retried; it does not sign the user out.
 */
import { ProviderRefusedError, type OidcRelyingParty, type ProviderTokens } from './oidc-relying-party.js';
import { errorMessage, silentLogger, type AgentLogger } from '../../common/logger.js';

/** Refresh this long before expiry: a minute, or a fifth of a short-lived token's life. */
export const REFRESH_AHEAD_MS = 60_000;
/** Never sooner than this after the last try (a token already expired, a provider that is down). */
export const REFRESH_MIN_DELAY_MS = 5_000;

export interface RefresherOptions {
  rp: OidcRelyingParty;
  tokens: ProviderTokens;
  save: (tokens: ProviderTokens) => Promise<void>;
  /** the provider refused: end the agent's session */
  onRefused: (error: ProviderRefusedError) => void | Promise<void>;
  /** new tokens are in place (e.g. to sign in again at the controller with them) */
  onRefreshed?: (tokens: ProviderTokens) => void | Promise<void>;
  logger?: AgentLogger;
}

export function refreshDelay(tokens: ProviderTokens, now = Date.now()): number | undefined {
  if (tokens.expiresAt === undefined || !tokens.refreshToken) return undefined;
  const life = tokens.expiresAt - now;
  const ahead = Math.min(REFRESH_AHEAD_MS, Math.max(0, life) / 5);
  return Math.max(REFRESH_MIN_DELAY_MS, life - ahead);
}

export class ProviderTokenRefresher {
  private timer: NodeJS.Timeout | undefined;
  private tokens: ProviderTokens;
  private stopped = false;
  private readonly log: AgentLogger;

  constructor(private readonly options: RefresherOptions) {
    this.tokens = options.tokens;
    this.log = options.logger ?? silentLogger;
  }

  current(): ProviderTokens {
    return this.tokens;
  }

  start(): void {
    this.stopped = false;
    this.schedule(refreshDelay(this.tokens));
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Refreshes now; resolves whether new tokens are in place. */
  async refreshNow(): Promise<boolean> {
    const { rp, save, onRefused, onRefreshed } = this.options;
    try {
      this.tokens = await rp.refresh(this.tokens);
      await save(this.tokens);
      this.log.info('the identity provider refreshed the sign-in');
      await onRefreshed?.(this.tokens);
      return true;
    } catch (error) {
      if (error instanceof ProviderRefusedError) {
        this.log.warn(`the identity provider refused to refresh the sign-in (${error.code}); signing out`);
        this.stop();
        await onRefused(error);
        return false;
      }
      this.log.warn(`refreshing at the identity provider failed, will retry: ${errorMessage(error)}`);
      throw error;
    }
  }

  private schedule(delay: number | undefined): void {
    clearTimeout(this.timer);
    if (delay === undefined || this.stopped) return;
    this.timer = setTimeout(() => {
      this.refreshNow().then(
        (ok) => ok && this.schedule(refreshDelay(this.tokens)),
        () => this.schedule(REFRESH_MIN_DELAY_MS * 6),
      );
    }, delay);
    this.timer.unref();
  }
}
