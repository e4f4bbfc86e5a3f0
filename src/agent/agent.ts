/**
 * The agent core, wired: one object the CLI and the desktop app's main process drive. It owns the
 * controller client, the session, the service list, the reporter, the prompts and the reactions to power
 * events (built in agent-parts.ts), and publishes status and service changes for a UI. Adapters come in
 * through ports: CredentialStore (keychain), PromptPort (terminal or windows), PowerEvents (powerMonitor
 * or D-Bus).
 */
import type { MfaState } from '../api/mfa.js';
import { checkInWords, describeServices, type ServiceAccessView } from '../api/service-access.js';
import { controllerTrustOf, createAgentParts, type AgentOptions } from './agent-parts.js';
import type { ControllerClient } from '../controller-client/controller-client.js';
import type { EdgeApi } from './client/edge-api.js';
import type { MfaClient } from './mfa/mfa-client.js';
import type { PostureReporter, ReportResult } from './posture/posture-reporter.js';
import type { ServiceDirectory } from './posture/service-directory.js';
import type { PowerEvent } from './power/power-events.js';
import type { PowerReactor } from './power/power-reactor.js';
import type { MfaPrompter } from './prompts/mfa-prompter.js';
import type { MfaTimeoutWatch } from './prompts/mfa-timeout-watch.js';
import { friendlyOsName } from './session/client-info.js';
import type { LoginCredentials, SessionManager, SessionStatus } from './session/session-manager.js';
import { Listeners } from '../common/listeners.js';
import { errorMessage, silentLogger, type AgentLogger } from '../common/logger.js';
import { AgentEvents } from './client/agent-events.js';
import type { AgentEvent } from '../api/data-plane.js';
import { TunnelManager } from './tunnel/tunnel-manager.js';
import { ProviderSession } from './sso/provider-session.js';
import type { ClientExternalJwtSigner } from './sso/provider-signer.js';
import type { UrlOpener } from './sso/provider-sign-in.js';

export type { AgentOptions } from './agent-parts.js';

function checkSkipped(state: SessionStatus['state']): string {
  if (state === 'needs-totp') return 'Enter your authenticator code to finish signing in first.';
  if (state === 'needs-enrollment') return 'Set up an authenticator app first: your account requires one.';
  return 'Sign in first.';
}

export interface AgentStatus extends SessionStatus {
  /** undefined until the first request */
  reachable: boolean | undefined;
  mfa: MfaState | undefined;
}

export class Agent {
  readonly client: ControllerClient;
  readonly api: EdgeApi;
  readonly sessions: SessionManager;
  readonly mfa: MfaClient;
  readonly directory: ServiceDirectory;
  readonly reporter: PostureReporter;
  readonly prompter: MfaPrompter;
  readonly statusChanges = new Listeners<AgentStatus>();
  readonly serviceChanges = new Listeners<ServiceAccessView[]>();
  /** proxy mode, when the options ask for it */
  readonly tunnel: TunnelManager | undefined;
  /** the sign-in through an identity provider, kept fresh while the agent runs */
  readonly provider: ProviderSession;
  private readonly pushed: AgentEvents;
  private readonly power: PowerReactor;
  private readonly timeoutWatch: MfaTimeoutWatch;
  private readonly log: AgentLogger;
  private reachable: boolean | undefined;
  private mfaState: MfaState | undefined;
  private running = false;

  constructor(private readonly options: AgentOptions) {
    this.log = options.logger ?? silentLogger;
    const parts = createAgentParts(options, () => this.mfaState);
    ({
      client: this.client,
      api: this.api,
      mfa: this.mfa,
      prompter: this.prompter,
      sessions: this.sessions,
    } = parts);
    ({
      directory: this.directory,
      reporter: this.reporter,
      power: this.power,
      timeoutWatch: this.timeoutWatch,
    } = parts);
    this.provider = new ProviderSession({
      api: this.api,
      sessions: this.sessions,
      store: options.credentials,
      controllerUrl: this.client.baseUrl,
      logger: this.log,
      onEnded: (message) => this.providerRefused(message),
    });
    this.tunnel = options.tunnel
      ? new TunnelManager({
          ...options.tunnel,
          createSession: (serviceId) => this.api.createSession(serviceId),
          reasonsFor: async (serviceId) => {
            await this.directory.refresh().catch(() => undefined);
            const view = this.services().find((s) => s.id === serviceId);
            return (view?.failing ?? []).map((f) => ({
              check: checkInWords(f.queryType),
              fix: f.explanation,
              ...(f.remediation ? { remediation: f.remediation } : {}),
            }));
          },
          referenceFor: (serviceId) =>
            this.services().find((s) => s.id === serviceId)?.reference ?? undefined,
        })
      : undefined;
    this.pushed = new AgentEvents({
      baseUrl: this.client.baseUrl,
      token: () => this.client.sessionToken,
      trust: controllerTrustOf(options),
      onEvent: (event) => this.onPushed(event),
      onEnded: () => void this.sessions.refresh().catch(() => undefined),
      onError: (err) => this.log.warn(`controller events: ${errorMessage(err)}; reconnecting`),
    });
    this.wire();
  }

  /** The controller said access changed: re-read at once instead of waiting for the next poll. */
  private onPushed(event: AgentEvent): void {
    if (event.event === 'mfa-changed') return void this.onMfaChangedElsewhere();
    if (event.event === 'sessions-removed') this.tunnel?.forgetSessions(event.data.sessionIds);
    if (this.sessions.status().state === 'active') void this.directory.refresh().catch(() => undefined);
  }

  /**
   * MFA was set up or reset elsewhere: the session may now owe a code (or have ended), the enrollment state
   * and the services' MFA checks changed. Re-read all three so every surface shows it without a restart.
   */
  private async onMfaChangedElsewhere(): Promise<void> {
    await this.sessions.refresh().catch(() => undefined);
    await this.noticeMfaChange();
    if (this.sessions.status().state === 'active') await this.directory.refresh().catch(() => undefined);
  }

  status(): AgentStatus {
    return { ...this.sessions.status(), reachable: this.reachable, mfa: this.mfaState };
  }

  /** The services with their access state and plain-words advice, from the last list read. */
  services(): ServiceAccessView[] {
    return describeServices(this.directory.snapshot?.services ?? [], {
      osName: friendlyOsName(this.options.platform ?? process.platform),
      mfaEnrolled: this.mfaState === undefined ? undefined : this.mfaState === 'enrolled',
      // Only a running agent reports; a one-off read (the CLI's `services`) shows what the controller holds.
      reported: this.running ? this.reporter.reportedThisSession() : undefined,
    });
  }

  /** Signs in with a password (asking for a TOTP through the prompt port if the login owes one). */
  async login(credentials: LoginCredentials, remember = true): Promise<AgentStatus> {
    await this.sessions.login(credentials, remember);
    await this.afterSignIn();
    return this.status();
  }

  /** Signs in with this device's enrolled certificate (the client presents it); a TOTP owed is asked for. */
  async loginWithCertificate(): Promise<AgentStatus> {
    await this.sessions.loginWithCertificate();
    await this.afterSignIn();
    return this.status();
  }

  /**
   * Signs in through an identity provider in the system browser (`open`): authorization code + PKCE with a
   * loopback redirect; a TOTP owed is asked for as after a password.
   */
  async loginWithProvider(signer: ClientExternalJwtSigner, open: UrlOpener): Promise<AgentStatus> {
    await this.provider.signInWithBrowser(signer, open);
    await this.afterSignIn();
    return this.status();
  }

  /** Signs in from what the keychain holds (a session, a login, a provider's tokens), or `fallback` credentials. */
  async resume(fallback?: LoginCredentials): Promise<AgentStatus> {
    await this.provider
      .load()
      .catch((error: unknown) =>
        this.log.warn(`the stored identity provider sign-in cannot be used: ${errorMessage(error)}`),
      );
    await this.sessions.resume(fallback);
    await this.afterSignIn();
    return this.status();
  }

  /** Stops reporting and ends the session; `forget` also removes the stored login. */
  async logout(forget = true): Promise<void> {
    this.pause();
    await this.sessions.logout(forget);
    await this.tunnel?.update([]);
    this.directory.clear();
    this.mfaState = undefined;
  }

  /** Starts reporting, power-event reactions and timeout prompts (again after a logout). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.pushed.start();
    void this.tunnel?.start().catch((err: unknown) => this.log.warn(`tunnel: ${errorMessage(err)}`));
    if (this.directory.snapshot) void this.tunnel?.update(this.directory.snapshot.services);
    this.power.start();
    this.timeoutWatch.start();
    this.reporter.start();
    this.provider.start();
  }

  /** Stops for good: waits for a cycle in progress and releases connections. The session stays valid. */
  async stop(): Promise<void> {
    this.pause();
    await this.reporter.idle();
    await this.tunnel?.stop();
    this.client.close();
  }

  /** One posture cycle now, sending only what changed. */
  reportNow(): Promise<ReportResult> {
    return this.reporter.runNow();
  }

  /**
   * "Check again": collect everything afresh, send all of it whether or not it changed (the controller may
   * have lost or aged what it had), and read access back. Throws when the cycle could not run.
   */
  async checkAgain(): Promise<{ report: ReportResult; services: ServiceAccessView[] }> {
    this.reporter.requestFullResend('check again');
    const report = await this.reporter.runNow();
    if (report.error) throw report.error;
    if (report.skipped) throw new Error(checkSkipped(report.skipped));
    return { report, services: await this.refreshServices() };
  }

  async refreshServices(): Promise<ServiceAccessView[]> {
    await this.directory.refresh();
    return this.services();
  }

  /**
   * Asks for a code now: the login's, or one for the services an MFA check blocks (a lapsed grace period
   * or timeout). For the tray's "MFA needed" item and the console's `code`. Joins a prompt already open.
   */
  promptForCode(): Promise<boolean> {
    if (this.sessions.status().state === 'needs-totp') return this.prompter.request({ reason: 'login' });
    const services = this.services()
      .filter((s) => s.access === 'mfa-needed')
      .map(({ id, name }) => ({ id, name }));
    return this.prompter.request({ reason: 'timeout', services });
  }

  /** Reacts as if the OS had raised the event (tests, the CLI's `wake`/`unlock` commands). */
  simulatePowerEvent(event: PowerEvent): Promise<void> {
    return this.power.handle(event);
  }

  /** Re-reads the enrollment state (after enroll, verify or remove). */
  async refreshMfaState(): Promise<MfaState | undefined> {
    try {
      this.mfaState = (await this.mfa.status()).state;
    } catch (error) {
      this.log.debug(`could not read the MFA state: ${errorMessage(error)}`);
    }
    this.statusChanges.emit(this.status());
    return this.mfaState;
  }

  /** Completes enrollment; verifying also completes the current session's MFA, so access returns at once. */
  async verifyMfa(code: string): Promise<void> {
    await this.mfa.verify(code);
    this.prompter.noteAccepted();
    await this.refreshMfaState();
    await this.afterCode();
  }

  private pause(): void {
    this.running = false;
    this.pushed.stop();
    this.power.stop();
    this.timeoutWatch.stop();
    this.reporter.stop();
    this.prompter.cancel();
    this.provider.stop();
  }

  /** The provider refused to renew the sign-in: the session ends (its tunnels cut), and the user is told why. */
  private async providerRefused(message: string): Promise<void> {
    this.log.warn(message);
    this.options.prompt.notify({ type: 'signed-out', message });
    await this.logout(false).catch((error: unknown) =>
      this.log.warn(`sign-out failed: ${errorMessage(error)}`),
    );
  }

  /**
   * A new API session may come with another MFA state: an administrator's reset ends every session, and the
   * agent signs in again to find no authenticator. Say so, so the user knows why and sets it up again.
   */
  private async noticeMfaChange(): Promise<void> {
    const before = this.mfaState;
    const after = await this.refreshMfaState();
    if (before === 'enrolled' && after === 'not-enrolled') this.options.prompt.notify({ type: 'mfa-reset' });
  }

  private async afterSignIn(): Promise<void> {
    await this.refreshMfaState();
    if (this.sessions.status().state === 'active') await this.directory.refresh();
  }

  /** An accepted code may complete a partial session and changes MFA checks: re-read both. */
  private async afterCode(): Promise<void> {
    if (this.sessions.status().state !== 'active') await this.sessions.refresh().catch(() => undefined);
    if (this.sessions.status().state === 'active') await this.directory.refresh().catch(() => undefined);
  }

  private wire(): void {
    const { prompt } = this.options;
    this.client.setReauthenticator(() => this.sessions.reauthenticate());
    let lastSessionId: string | undefined;
    this.sessions.changes.on((status) => {
      this.reporter.requestFullResend('API session changed');
      if (status.state === 'signed-out') {
        this.directory.clear();
        // Only a running agent can lose its session unasked (logout pauses first).
        if (this.running)
          prompt.notify({
            type: 'signed-out',
            message: 'The controller no longer accepts the stored login; sign in again.',
          });
      }
      if (status.state === 'active' && this.running) void this.reporter.runNow();
      if (status.state !== 'signed-out' && status.apiSessionId !== lastSessionId) void this.noticeMfaChange();
      lastSessionId = status.apiSessionId;
      this.statusChanges.emit(this.status());
    });
    this.client.reachability.on((reachable) => {
      const wasDown = this.reachable === false;
      this.reachable = reachable;
      const controllerUrl = this.client.baseUrl;
      // "Reachable" is news only after an outage; the first answer of a run is not worth a notice.
      if (!reachable) prompt.notify({ type: 'controller-unreachable', controllerUrl });
      else if (wasDown) prompt.notify({ type: 'controller-reachable', controllerUrl });
      // The controller may have restarted while we could not see it: whatever it had may be gone.
      if (reachable && wasDown) this.reporter.requestFullResend('controller reachable again');
      this.statusChanges.emit(this.status());
    });
    this.prompter.accepted.on(() => void this.afterCode());
    // The first report of a session turns "checking…" into results even when it changed nothing to re-read.
    this.reporter.reports.on((result) => {
      if (!result.skipped && !result.error) this.serviceChanges.emit(this.services());
    });
    this.directory.updates.on(() => {
      this.serviceChanges.emit(this.services());
      if (this.running) void this.tunnel?.update(this.directory.snapshot?.services ?? []);
    });
  }
}
