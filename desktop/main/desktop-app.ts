/**
 * The composition root of the desktop app: real adapters (powerMonitor, keychain, notifications and
 * windows as the prompt port, the tray) wired into the agent core, the IPC schema bound with sender checks,
 * and the bundled controller started when Settings (or, when they have not said, the launch) ask for it.
 * `index.ts` only adds the Electron lifecycle around it; the unit tests build it with the fake electron
 * module.
 */
import { join } from 'node:path';
import { session as electronSession } from 'electron';
import type { AgentOptions } from '../../src/agent/agent.js';
import type { CredentialStore } from '../../src/agent/credentials/credential-store.js';
import { KeyringCredentialStore } from '../../src/agent/credentials/keyring-credential-store.js';
import type { PowerEventSource } from '../../src/agent/power/power-events.js';
import { SettingsFile } from '../../src/agent/settings/agent-settings.js';
import { sameController } from '../../src/agent/session/credential-vault.js';
import { errorMessage, silentLogger, type AgentLogger } from '../../src/common/logger.js';
import type { IpcEvents } from '../ipc/bridge.js';
import type { SessionView } from '../ipc/views.js';
import { serveRenderer } from './app-protocol.js';
import { startBundledController, type BundledController } from './bundled-controller.js';
import { DesktopAgent } from '../agent/desktop-agent.js';
import { DesktopPrompts } from '../agent/desktop-prompts.js';
import { DesktopSettings } from '../agent/desktop-settings.js';
import { electronPromptSurface, electronShell } from './electron-shell.js';
import { showNotification } from './notifications.js';
import { WarningNotices } from '../agent/warning-notices.js';
import { createIpcHandlers } from './ipc-handlers.js';
import { bindIpcHandlers, createWindowEvents } from './ipc-main.js';
import { electronPowerEvents } from './power-monitor.js';
import { APP_ORIGIN, hardenSession, isTrustedSender } from './security.js';
import { startAtLoginFor } from './start-at-login.js';
import { AppTray } from './tray.js';
import { syncViews } from '../agent/view-sync.js';
import { serviceSocketPath } from '../../src/agent/service/service-client.js';
import { serviceMode } from '../../src/agent/service/service-mode.js';
import { followInterceptedAddresses } from './service-addresses.js';
import { AppWindows } from './windows.js';

/** Seeds a fresh bundled controller with demo data; resolves the demo user's login, if it made one. */
export type DemoSeeder = (
  controllerUrl: string,
  adminPasswordFile: string,
) => Promise<{ username: string; password: string } | undefined>;

export interface DesktopAppOptions {
  /** The built renderer (out/renderer) served as postern://app. */
  rendererDir: string;
  preload: string;
  /** The built controller-process.js. */
  controllerEntry: string;
  /** electron-vite's dev server; trusted as a renderer origin only when set (never when packaged). */
  devServerUrl?: string;
  /** The app's data folder (Electron's userData). */
  dataDir: string;
  /** The bundled controller's data folder. */
  controllerDataDir: string;
  /** Run the bundled controller when Settings have not said (the demo); off unless set. */
  bundledControllerByDefault?: boolean;
  /** Where agent.json lives (shared with the CLI); the CLI's default when unset. */
  configDir?: string;
  credentials?: CredentialStore;
  platform?: NodeJS.Platform;
  /** Launched at login: stay in the tray unless the user must sign in. */
  startHidden?: boolean;
  seedDemo?: DemoSeeder;
  /** Overrides for the agent core (tests: a fake collector, a short interval). */
  agent?: Partial<Omit<AgentOptions, 'controllerUrl' | 'credentials' | 'prompt' | 'power'>>;
  power?: PowerEventSource;
  /** The Postern service's socket (POSTERN_SERVICE_SOCKET, else /run/postern/agent.sock): asked for the mode. */
  serviceSocket?: string;
  logger?: AgentLogger;
  onQuit?: () => void;
}

export class DesktopApp {
  readonly windows: AppWindows;
  readonly prompts: DesktopPrompts;
  readonly agent: DesktopAgent;
  readonly events: IpcEvents;
  readonly settings: DesktopSettings;
  tray: AppTray | undefined;
  private readonly power: PowerEventSource;
  private readonly log: AgentLogger;
  private controller: BundledController | undefined;
  private unbind: (() => void) | undefined;
  private unsync: (() => void) | undefined;
  /** ends following the Postern service's intercepted addresses */
  private unfollow: (() => void) | undefined;
  /** ends the warned services' daily notifications */
  private unwarn: (() => void) | undefined;
  private quitting = false;
  /** agent.json, shared with the CLI: the controller the user signed in to last. */
  private readonly agentSettings: SettingsFile;

  constructor(private readonly options: DesktopAppOptions) {
    this.log = options.logger ?? silentLogger;
    this.events = createWindowEvents(options.devServerUrl);
    this.windows = new AppWindows({
      preload: options.preload,
      pageUrl: (route) => `${options.devServerUrl ?? APP_ORIGIN}/index.html#${route}`,
      events: this.events,
      quitting: () => this.quitting,
    });
    this.prompts = new DesktopPrompts(electronPromptSurface(this.windows));
    this.power = options.power ?? electronPowerEvents({ platform: options.platform, logger: this.log });
    this.settings = new DesktopSettings(
      options.dataDir,
      startAtLoginFor(options.platform),
      options.bundledControllerByDefault,
    );
    this.agentSettings = new SettingsFile(options.configDir);
    this.agent = new DesktopAgent({
      // The tunnel is the product: local listeners per service and SOCKS5, ports kept across restarts.
      tunnel: { portsFile: join(options.dataDir, 'tunnel-ports.json') },
      ...options.agent,
      credentials: options.credentials ?? new KeyringCredentialStore(),
      prompt: this.prompts,
      power: this.power,
      settings: this.agentSettings,
      logger: this.log,
      platform: options.platform,
    });
  }

  /** Call once the app is ready. */
  async start(): Promise<void> {
    hardenSession(electronSession.defaultSession, this.options.devServerUrl);
    if (!this.options.devServerUrl) serveRenderer(electronSession.defaultSession, this.options.rendererDir);
    const handlers = createIpcHandlers(this.agent, this.prompts, electronShell(this.windows, this.settings));
    this.unbind = bindIpcHandlers(handlers, {
      isTrusted: (frame) => isTrustedSender(frame, this.options.devServerUrl),
      onRefused: (channel, reason) => this.log.warn(`refused IPC ${channel}: ${reason}`),
    });
    this.tray = new AppTray({
      open: (view) => this.windows.showMain(view),
      openPrompt: () => this.windows.openPrompt(),
      signOut: () => void this.agent.signOut(),
      quit: () => this.options.onQuit?.(),
    });
    const refreshTray = () =>
      this.tray?.update({
        session: this.agent.session(),
        services: this.agent.services().services,
        prompt: this.prompts.current(),
        mode: this.agent.services().mode,
      });
    this.unsync = syncViews(this.agent, this.prompts, this.events, refreshTray);
    refreshTray();
    const warnings = new WarningNotices(this.settings, ({ title, body }) =>
      showNotification(title, body, () => this.windows.showMain('services')),
    );
    this.unwarn = this.agent.serviceChanges.on((view) => {
      warnings
        .review(view.services)
        .catch((error: unknown) => this.log.warn(`warned services' notices: ${errorMessage(error)}`));
    });
    // Asked while signing in: the app runs its own proxy-mode agent either way, and says which mode is
    // active and why (the service's reply has a bounded wait).
    const socket = this.options.serviceSocket ?? serviceSocketPath();
    const mode = serviceMode(socket).then(async (report) => {
      this.agent.setMode(report);
      if (report.mode !== 'intercept') return;
      // The service's own view of where each service is reached; a failure leaves the local addresses.
      this.unfollow = await followInterceptedAddresses(socket, (addresses) =>
        this.agent.setInterceptedAddresses(addresses),
      ).catch((error: unknown) => {
        this.log.warn(`the Postern service's addresses: ${errorMessage(error)}`);
        return undefined;
      });
    });
    const session = await this.signInAtLaunch();
    await mode;
    if (!this.options.startHidden || session.status !== 'signed-in') this.windows.showMain();
  }

  async stop(): Promise<void> {
    this.quitting = true;
    this.unbind?.();
    this.unsync?.();
    this.unfollow?.();
    this.unwarn?.();
    await this.agent.stop();
    this.power.close();
    await this.controller
      ?.stop()
      .catch((error: unknown) => this.log.warn(`stopping the controller: ${errorMessage(error)}`));
    this.tray?.destroy();
    this.windows.destroyAll();
  }

  /**
   * Signs in to the controller used last; the bundled one (when it runs) when there is none, seeded with
   * demo data and signed in as the demo user on its very first launch. Neither: the sign-in screen asks.
   */
  private async signInAtLaunch(): Promise<SessionView> {
    const { useBundledController } = await this.settings.load();
    const saved = (await this.agentSettings.load()).controllerUrl;
    if (useBundledController) {
      this.controller = await startBundledController({
        entry: this.options.controllerEntry,
        dataDir: this.options.controllerDataDir,
      }).catch((error: unknown) => (this.log.error(errorMessage(error)), undefined));
    }
    const bundled = this.controller?.url;
    const session = await this.agent.resume(saved ?? bundled);
    const onBundled = bundled !== undefined && (saved === undefined || sameController(saved, bundled));
    if (session.status !== 'signed-out' || !onBundled || !this.options.seedDemo) return session;
    const demo = await this.options
      .seedDemo(bundled, this.controller!.adminPasswordFile)
      .catch((error: unknown) => {
        this.log.warn(`demo data: ${errorMessage(error)}`);
        return undefined;
      });
    if (!demo) return session;
    return this.agent.signIn({ controllerUrl: bundled, ...demo }).catch(() => this.agent.session());
  }
}
