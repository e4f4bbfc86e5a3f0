/**
 * The agent core as the desktop shell sees it: one Agent per controller (a sign-in to another controller
 * replaces it), its state turned into the IPC views, and the MFA flows with the QR code rendered here for a
 * renderer that has no Node. Electron-free, so the UI tests drive the very same object.
 */
import { dirname } from 'node:path';
import { Agent, type AgentOptions, type AgentStatus } from '../../src/agent/agent.js';
import { clientCertificateOf, DeviceIdentityStore } from '../../src/agent/enrollment/device-identity.js';
import { sameController } from '../../src/agent/session/credential-vault.js';
import { enrollFromDesktop } from './desktop-enrollment.js';
import { qrDataUrl } from '../../src/agent/mfa/qr-code.js';
import { NotSignedInError } from '../../src/agent/session/session-manager.js';
import type { SettingsFile } from '../../src/agent/settings/agent-settings.js';
import { Listeners } from '../../src/common/listeners.js';
import { errorMessage, silentLogger, type AgentLogger } from '../../src/common/logger.js';
import { toIpcError } from '../ipc/ipc-error.js';
import { wireTunnelNotices, withLocalAddresses } from './tunnel-view.js';
import { describeTunnelEvent, type TunnelEvent } from '../../src/agent/tunnel/tunnel-events.js';
import type {
  EnrollmentView,
  EnrollRequest,
  MfaStatusView,
  ModeView,
  ServicesView,
  SessionStatus,
  SessionView,
  SignInRequest,
  ProviderSignInRequest,
  ProviderView,
} from '../ipc/views.js';
import { usableSigners } from '../../src/agent/sso/provider-signer.js';
import type { UrlOpener } from '../../src/agent/sso/provider-sign-in.js';

export interface DesktopAgentOptions extends Omit<AgentOptions, 'controllerUrl'> {
  /** agent.json, shared with the headless CLI: which controller and user to sign in as. */
  settings: SettingsFile;
}

const STATUS: Record<AgentStatus['state'], SessionStatus> = {
  'signed-out': 'signed-out',
  'needs-totp': 'needs-code',
  'needs-enrollment': 'needs-enrollment',
  active: 'signed-in',
};

/** `https://host:1280/` and `https://host:1280` are the same controller. */
export const normaliseUrl = (url: string) => new URL(url).toString().replace(/\/+$/, '');

export class DesktopAgent {
  readonly sessionChanges = new Listeners<SessionView>();
  readonly serviceChanges = new Listeners<ServicesView>();
  private agent: Agent | undefined;
  private unwire: (() => void)[] = [];
  private signingIn = false;
  private message: string | null = null;
  private controllerUrl: string | null = null;
  private username: string | null = null;
  /** the fingerprint the current agent pins, remembered with its controller after a sign-in */
  private pinnedFingerprint: string | undefined;
  private updatedAt: number | null = null;
  /** until the Postern service has been asked (desktop-app.ts asks at start) */
  private mode: ModeView = { mode: 'proxy', why: 'checking for the Postern service…' };
  private interceptedAt: ReadonlyMap<string, string[]> | undefined;
  private readonly log: AgentLogger;

  constructor(private readonly options: DesktopAgentOptions) {
    this.log = options.logger ?? silentLogger;
  }

  /** The running agent core, for the power and prompt wiring and for tests. */
  get current(): Agent | undefined {
    return this.agent;
  }

  session(): SessionView {
    const status = this.agent?.status();
    return {
      status: this.signingIn ? 'signing-in' : status ? STATUS[status.state] : 'signed-out',
      controllerUrl: this.controllerUrl,
      username: status?.username ?? this.username,
      identityName: status?.identityName ?? null,
      reachable: status?.reachable !== false,
      mfa: status?.mfa ?? null,
      message: this.message,
    };
  }

  services(): ServicesView {
    return {
      services: withLocalAddresses(this.agent, this.interceptedAt),
      updatedAt: this.updatedAt,
      mode: this.mode,
    };
  }

  /** Where the Postern service intercepts each service (its own names and ports); undefined: it does not. */
  setInterceptedAddresses(addresses: ReadonlyMap<string, string[]> | undefined): void {
    this.interceptedAt = addresses;
    this.serviceChanges.emit(this.services());
  }

  /** What the Postern service said (or why it could not be asked); every window and the tray show it. */
  setMode(mode: ModeView): void {
    this.mode = { mode: mode.mode, why: mode.why };
    this.serviceChanges.emit(this.services());
  }

  /**
   * At launch: signs in from what the keychain holds for `controllerUrl` (or the saved controller). Never
   * throws: a failure leaves the app signed out with the reason shown on the sign-in screen.
   */
  async resume(controllerUrl?: string): Promise<SessionView> {
    const saved = await this.options.settings.load();
    const url = controllerUrl ?? saved.controllerUrl;
    this.username = saved.username ?? null;
    if (!url) return this.session();
    const agent = await this.use(url);
    await this.track(async () => {
      await agent.resume();
      agent.start();
    });
    return this.session();
  }

  /** Signs in with a password; a TOTP the session owes arrives meanwhile as a `login` prompt. */
  async signIn(request: SignInRequest): Promise<SessionView> {
    const agent = await this.use(request.controllerUrl);
    this.username = request.username;
    await this.track(async () => {
      await agent.login({ username: request.username, password: request.password });
      await this.options.settings.update({
        controllerUrl: agent.client.baseUrl,
        username: request.username,
        // The pin belongs to the controller it was made for; another one's is dropped.
        controllerFingerprint: this.pinnedFingerprint,
      });
      agent.start();
    }, true);
    return this.session();
  }

  /**
   * The identity providers `controllerUrl` offers, for the sign-in screen's "Sign in with …" buttons; none
   * where it offers none or cannot be reached (the password form stays). A signed-in agent is not replaced.
   */
  async providers(controllerUrl: string): Promise<ProviderView[]> {
    const current = this.agent;
    const busy = current && current.status().state !== 'signed-out';
    if (busy && current.client.baseUrl !== normaliseUrl(controllerUrl)) return [];
    const agent = busy ? current : await this.use(controllerUrl);
    try {
      return usableSigners(await agent.api.listExternalJwtSigners()).map(({ id, name }) => ({ id, name }));
    } catch (error) {
      this.log.debug(`the controller's identity providers could not be read: ${errorMessage(error)}`);
      return [];
    }
  }

  /**
   * Signs in through an identity provider in the system browser (`open`): authorization code + PKCE with a
   * loopback redirect; the provider's tokens go to the keychain and are refreshed while the agent runs.
   */
  async signInWithProvider(request: ProviderSignInRequest, open: UrlOpener): Promise<SessionView> {
    const agent = await this.use(request.controllerUrl);
    await this.track(async () => {
      const signer = usableSigners(await agent.api.listExternalJwtSigners()).find(
        (s) => s.id === request.providerId,
      );
      if (!signer) throw new Error('This controller no longer offers that sign-in; choose another.');
      this.username = null;
      await agent.loginWithProvider(signer, open);
      await this.options.settings.update({
        controllerUrl: agent.client.baseUrl,
        controllerFingerprint: this.pinnedFingerprint,
      });
      agent.start();
    }, true);
    return this.session();
  }

  /**
   * Enrolls this device with a token (checked against the controller it names before it is sent) and signs
   * in: with the new certificate, or with the new password.
   */
  async enroll(request: EnrollRequest): Promise<SessionView> {
    await this.track(async () => {
      const enrolled = await enrollFromDesktop(request, this.devices(), {
        ca: this.options.ca,
        fingerprint: this.options.controllerFingerprint,
        allowPlainHttp: this.options.allowPlainHttp,
        logger: this.log,
      });
      const { controllerUrl, pinnedFingerprint, login } = enrolled;
      await this.options.settings.update({
        controllerUrl,
        ...(login ? { username: login.username } : {}),
        controllerFingerprint: this.options.controllerFingerprint ?? pinnedFingerprint,
      });
      // A new agent: it presents the certificate just stored and pins what the token said.
      const agent = await this.use(controllerUrl, true);
      this.username = login?.username ?? null;
      if (login) await agent.login(login);
      else await agent.loginWithCertificate();
      agent.start();
    }, true);
    return this.session();
  }

  /** Signs out; a provider sign-in is ended at the provider too (its sign-out page opened with `open`). */
  async signOut(open?: UrlOpener): Promise<SessionView> {
    const agent = this.agent;
    this.message = null;
    if (agent) {
      const endSession = await agent.provider.signOut();
      await agent.logout(true).catch((error: unknown) => this.log.warn(`sign-out: ${errorMessage(error)}`));
      if (endSession && open)
        await Promise.resolve(open(endSession)).catch((error: unknown) =>
          this.log.warn(`opening the provider's sign-out page: ${errorMessage(error)}`),
        );
      await this.replace(undefined);
    }
    this.publish();
    return this.session();
  }

  /** "Check again": a posture cycle now, then the list as the controller sees it after it. */
  async checkAgain(): Promise<ServicesView> {
    await this.require().checkAgain();
    return this.services();
  }

  /** A code entered on the services or sign-in screen; it satisfies every MFA check of the session. */
  async submitCode(code: string): Promise<ServicesView> {
    const agent = this.agent;
    if (!agent || agent.status().state === 'signed-out') throw new NotSignedInError('Sign in first.');
    await agent.mfa.submit(code);
    agent.prompter.noteAccepted();
    await agent.sessions.refresh();
    await agent.refreshMfaState();
    if (agent.status().state === 'active') {
      agent.start();
      await agent.refreshServices();
    }
    this.publish();
    return this.services();
  }

  async mfaStatus(): Promise<MfaStatusView> {
    const status = await this.require().mfa.status();
    return { state: status.state, remainingRecoveryCodes: status.remainingRecoveryCodes ?? null };
  }

  async startEnrollment(): Promise<EnrollmentView> {
    const agent = this.require();
    const enrollment = await agent.mfa.enroll();
    await agent.refreshMfaState();
    return {
      qrDataUrl: await qrDataUrl(enrollment.provisioningUrl),
      secret: enrollment.secret,
      provisioningUrl: enrollment.provisioningUrl,
      recoveryCodes: enrollment.recoveryCodes,
    };
  }

  async verifyEnrollment(code: string): Promise<MfaStatusView> {
    await this.require().verifyMfa(code);
    return this.mfaStatus();
  }

  /** Removes MFA with a code, or abandons an unverified enrollment without one. */
  async removeMfa(code?: string): Promise<MfaStatusView> {
    const agent = this.require();
    await agent.mfa.remove(code);
    await agent.refreshMfaState();
    await agent.refreshServices().catch(() => undefined);
    return this.mfaStatus();
  }

  recoveryCodes(code: string): Promise<string[]> {
    return this.require().mfa.recoveryCodes(code);
  }

  async regenerateRecoveryCodes(code: string): Promise<string[]> {
    const codes = await this.require().mfa.regenerateRecoveryCodes(code);
    if (!codes) throw new Error('The codes were replaced; enter your next authenticator code to show them.');
    return codes;
  }

  async stop(): Promise<void> {
    await this.replace(undefined);
  }

  private require(): Agent {
    if (!this.agent || this.agent.status().state === 'signed-out')
      throw new NotSignedInError('Sign in first.');
    return this.agent;
  }

  /** This device's enrolled identity: its key in the keychain, its certificates beside agent.json. */
  private devices(): DeviceIdentityStore {
    return new DeviceIdentityStore(this.options.credentials, dirname(this.options.settings.path));
  }

  /**
   * The agent for `url`: the current one (unless `fresh`), or a new one replacing it, presenting this
   * device's certificate when it is enrolled there and pinning the fingerprint remembered for it.
   */
  private async use(url: string, fresh = false): Promise<Agent> {
    const normalised = normaliseUrl(url);
    if (!fresh && this.agent && this.agent.client.baseUrl === normalised) return this.agent;
    const saved = await this.options.settings.load();
    const remembered =
      saved.controllerUrl && sameController(saved.controllerUrl, normalised)
        ? saved.controllerFingerprint
        : undefined;
    const device = await this.devices().load(normalised);
    this.pinnedFingerprint = this.options.controllerFingerprint ?? remembered;
    const agent = new Agent({
      ...this.options,
      controllerUrl: normalised,
      controllerFingerprint: this.pinnedFingerprint,
      clientCertificate: device ? clientCertificateOf(device) : undefined,
    });
    await this.replace(agent);
    this.controllerUrl = normalised;
    return agent;
  }

  private async replace(agent: Agent | undefined): Promise<void> {
    const old = this.agent;
    this.unwire.forEach((off) => off());
    this.unwire = [];
    this.agent = agent;
    this.updatedAt = null;
    if (agent) {
      this.unwire.push(
        agent.statusChanges.on(() => this.publish()),
        agent.serviceChanges.on(() => {
          this.updatedAt = Date.now();
          this.serviceChanges.emit(this.services());
        }),
      );
      const tunnel = agent.tunnel;
      if (tunnel) {
        // A listener that moved off a squatted port, or a local connection that failed: the app's log says so.
        const logTunnel = (event: TunnelEvent) => {
          if (event.type === 'warning' || event.type === 'error') this.log.warn(describeTunnelEvent(event));
        };
        tunnel.events.on('event', logTunnel);
        this.unwire.push(
          wireTunnelNotices(tunnel, this.options.prompt, () => this.serviceChanges.emit(this.services())),
          () => void tunnel.events.off('event', logTunnel),
        );
      }
    }
    if (old)
      await old.stop().catch((error: unknown) => this.log.warn(`stopping the agent: ${errorMessage(error)}`));
  }

  /** Runs a sign-in step with `signing-in` shown meanwhile; a failure becomes the message (and rethrows if asked). */
  private async track(step: () => Promise<void>, rethrow = false): Promise<void> {
    this.signingIn = true;
    this.message = null;
    this.publish();
    try {
      await step();
    } catch (error) {
      this.message = error instanceof NotSignedInError ? null : toIpcError(error).message;
      if (rethrow) throw error;
    } finally {
      this.signingIn = false;
      this.publish();
      this.serviceChanges.emit(this.services());
    }
  }

  private publish(): void {
    this.sessionChanges.emit(this.session());
  }
}
