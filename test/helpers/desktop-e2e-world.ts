/**
 * The world of the UI tests: a real controller (with its embedded edge router) with a user and guarded
 * services, the real agent core (tunnel included) behind main's DesktopAgent, DesktopPrompts, IPC handlers
 * and dispatcher (sender check and payload guards included), and browser pages standing in for the app's windows. Each page loads the built renderer from a
 * loopback server with the app's CSP, and the real preload (bundled with the electron shim) talks to the
 * dispatcher through a Playwright binding. Only Electron itself is missing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import type { BrowserContext, Page } from '@playwright/test';
import { MemoryCredentialStore } from '../../src/agent/credentials/memory-credential-store.js';
import type { PostureCollector } from '../../src/agent/collectors/posture-collector.js';
import { PowerEventEmitter } from '../../src/agent/power/power-events.js';
import { SettingsFile } from '../../src/agent/settings/agent-settings.js';
import { createEvents } from '../../desktop/ipc/bridge.js';
import type { SettingsView, ViewName } from '../../desktop/ipc/views.js';
import { DesktopAgent } from '../../desktop/agent/desktop-agent.js';
import { DesktopPrompts, type PromptSurface } from '../../desktop/agent/desktop-prompts.js';
import { createDispatch } from '../../desktop/main/ipc-dispatch.js';
import { createIpcHandlers, type DesktopShell } from '../../desktop/main/ipc-handlers.js';
import { resolveAppFile } from '../../desktop/main/app-protocol.js';
import { CONTENT_SECURITY_POLICY } from '../../desktop/main/security.js';
import { syncViews } from '../../desktop/agent/view-sync.js';
import { Api } from './api.js';
import { adminApi, shiftControllerClock } from './agent-setup.js';
import { ADMIN_PASSWORD, startTestBundle, type TestController } from './controller.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.png': 'image/png',
};

/** The built renderer over loopback HTTP, with the CSP header the app protocol sends. */
async function serveRenderer(dir: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    // Reuse the app protocol's path rules by mapping the request onto the app scheme.
    const file = resolveAppFile(`postern://app${new URL(req.url ?? '/', 'http://x').pathname}`, dir);
    try {
      const body = readFileSync(file ?? '');
      res.writeHead(200, {
        'content-type': TYPES[extname(file!)] ?? 'application/octet-stream',
        'content-security-policy': CONTENT_SECURITY_POLICY,
      });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** The administrator's API client for a controller on HTTPS, trusting its self-signed certificate. */
async function httpsAdminApi(controller: TestController): Promise<Api> {
  const admin = new Api(controller.url, undefined, controller.tls!.cert);
  const res = await admin.login('admin', ADMIN_PASSWORD);
  if (res.status !== 200) throw new Error(`admin login failed: ${JSON.stringify(res.body)}`);
  return admin;
}

export interface WorldOptions {
  rendererDir: string;
  /** The preload bundled for a browser page (global-setup.ts). */
  browserPreload: string;
  /** The agent's collector (default: this machine's, as the app has). */
  collector?: PostureCollector;
  /**
   * The controller on HTTPS with its own CA (default: plain HTTP on loopback), for what needs TLS: a device
   * that enrolled with a one-time token signs in with its client certificate.
   */
  https?: boolean;
}

export class DesktopE2eWorld {
  readonly power = new PowerEventEmitter();
  readonly notifications: { title: string; body: string }[] = [];
  readonly savedFiles: { name: string; text: string }[] = [];
  readonly copied: string[] = [];
  /** pages main opened in the "system browser" (a provider's sign-in and sign-out) */
  readonly opened: URL[] = [];
  /** what the "system browser" does with a page main opens (a test drives a provider's sign-in there) */
  onOpenExternal: (url: URL) => Promise<void> = async () => undefined;
  readonly agent: DesktopAgent;
  readonly prompts: DesktopPrompts;
  /** What the controller thinks "now" is; moved by `shiftControllerClock`. */
  controllerNow = () => Date.now();
  private context: BrowserContext | undefined;
  private mainPage: Page | undefined;
  private promptPage: Promise<Page> | undefined;
  private settings: SettingsView = { startAtLogin: false, useBundledController: false };
  private readonly dispatch: ReturnType<typeof createDispatch>;

  private constructor(
    readonly controller: TestController,
    readonly admin: Api,
    private readonly web: { server: Server; origin: string },
    private readonly dir: string,
    private readonly options: WorldOptions,
  ) {
    this.prompts = new DesktopPrompts(this.surface());
    this.agent = new DesktopAgent({
      credentials: new MemoryCredentialStore(),
      prompt: this.prompts,
      power: this.power,
      settings: new SettingsFile(join(dir, 'config')),
      reportIntervalMs: 60_000,
      // As the app runs it, minus the fixed SOCKS port (another run may hold it).
      tunnel: { portsFile: join(dir, 'tunnel-ports.json'), socksPort: 0 },
      ...(options.collector ? { collector: options.collector } : {}),
    });
    this.dispatch = createDispatch(createIpcHandlers(this.agent, this.prompts, this.shell()), {
      // The app trusts its own scheme; here the pages' loopback origin plays that part.
      isTrusted: (frame) => !!frame && frame.parent === null && new URL(frame.url).origin === web.origin,
    });
    syncViews(
      this.agent,
      this.prompts,
      createEvents((channel, value) => this.emit(channel, value)),
    );
  }

  static async start(options: WorldOptions): Promise<DesktopE2eWorld> {
    const controller = await startTestBundle(options.https ? { https: true } : {});
    const admin = options.https ? await httpsAdminApi(controller) : await adminApi(controller.url);
    const web = await serveRenderer(options.rendererDir);
    return new DesktopE2eWorld(controller, admin, web, mkdtempSync(join(tmpdir(), 'postern-e2e-')), options);
  }

  get origin(): string {
    return this.web.origin;
  }

  pageUrl(route: string): string {
    return `${this.web.origin}/index.html#/${route}`;
  }

  /** The main window: a page in `context` showing the services route. */
  async openMain(context: BrowserContext): Promise<Page> {
    this.context = context;
    this.mainPage = await this.openPage('services');
    return this.mainPage;
  }

  /** The TOTP window, once main has opened it. */
  waitForPromptPage(): Promise<Page> {
    if (!this.promptPage) throw new Error('no prompt window was opened');
    return this.promptPage;
  }

  get promptWindowOpen(): boolean {
    return this.promptPage !== undefined;
  }

  /** Moves the in-process controller's clock (grace periods) without waiting. */
  shiftControllerClock(ms: number): void {
    this.controllerNow = shiftControllerClock(this.controller.ctx, ms);
  }

  async dispose(): Promise<void> {
    await this.agent.stop();
    this.web.server.closeAllConnections();
    await new Promise((resolve) => this.web.server.close(resolve));
    await this.controller.dispose();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async openPage(route: string): Promise<Page> {
    if (!this.context) throw new Error('no browser context yet');
    const page = await this.context.newPage();
    await page.exposeBinding('__posternInvoke', ({ frame }, channel: string, payload: unknown) =>
      this.dispatch(channel, { url: frame.url(), parent: frame.parentFrame() }, payload),
    );
    await page.addInitScript({ path: this.options.browserPreload });
    await page.goto(this.pageUrl(route));
    return page;
  }

  private emit(channel: string, value: unknown): void {
    for (const page of this.context?.pages() ?? []) {
      if (!page.isClosed())
        void page
          .evaluate(([c, v]) => window.__posternEmit(c, v), [channel, value] as const)
          .catch(() => undefined);
    }
  }

  private surface(): PromptSurface {
    return {
      openPromptWindow: () => {
        this.promptPage ??= this.openPage('prompt');
        void this.promptPage.then((page) => page.bringToFront());
      },
      closePromptWindow: () => {
        const page = this.promptPage;
        this.promptPage = undefined;
        void page?.then((p) => p.close());
      },
      notify: (title, body) => void this.notifications.push({ title, body }),
      mainWindowVisible: () => !!this.mainPage && !this.mainPage.isClosed(),
      showMainWindow: (view) => this.showView(view ?? 'services'),
    };
  }

  private showView(view: ViewName): void {
    void this.mainPage?.evaluate((hash) => (window.location.hash = hash), `#/${view}`);
  }

  private shell(): DesktopShell {
    return {
      saveTextFile: async (name, text) => {
        writeFileSync(join(this.dir, name), text, { mode: 0o600 });
        this.savedFiles.push({ name, text });
        return true;
      },
      copyText: (text) => void this.copied.push(text),
      openExternal: async (url) => {
        this.opened.push(url);
        await this.onOpenExternal(url);
      },
      showView: (view) => this.showView(view),
      settings: async () => this.settings,
      updateSettings: async (changes) => (this.settings = { ...this.settings, ...changes }),
    };
  }
}
