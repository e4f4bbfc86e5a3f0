/**
 * The desktop app says which mode the tunnel is in and why: the services view and the tray (tooltip and
 * menu), from the Postern service's answer on its socket (a real socket server here, answering as the
 * service does), or why there is none. The app runs its own proxy-mode agent either way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../fakes/electron.js'));

const fake = await import('../../fakes/electron.js');
const { startDesktopHarness } = await import('../../helpers/desktop-app-harness.js');
const { ServiceSocketServer } = await import('../../../src/agent/service/service-socket-server.js');
const { silentLogger } = await import('../../../src/common/logger.js');
const { withLocalAddresses } = await import('../../../desktop/agent/tunnel-view.js');
type DesktopHarness = import('../../helpers/desktop-app-harness.js').DesktopHarness;
type ServicesView = import('../../../desktop/ipc/views.js').ServicesView;
type ModeView = import('../../../desktop/ipc/views.js').ModeView;

const MAIN = 'postern://app/index.html#/services';
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function started(serviceSocket?: string): Promise<DesktopHarness> {
  fake.resetFakeElectron();
  const h = await startDesktopHarness({ serviceSocket });
  cleanup.push(() => h.dispose());
  return h;
}

const servicesView = async () =>
  ((await fake.ipcMain.invokeFrom(MAIN, 'services:get')) as { value: ServicesView }).value;

function trayShows(h: DesktopHarness, mode: ModeView, line: string): void {
  const tray = fake.Tray.all.at(-1)!;
  expect(h.desktop.agent.services().mode).toEqual(mode);
  expect(tray.tooltip.split('\n')[1]).toBe(line);
  const labels = tray.menu!.items.map((i) => i.label);
  expect(labels).toContain(line);
}

describe('the mode line', () => {
  it('says proxy and why when no Postern service answers', async () => {
    const h = await started();
    const view = await servicesView();
    expect(view.mode.mode).toBe('proxy');
    expect(view.mode.why).toMatch(/^the Postern service is not (installed|running)/);
    trayShows(h, view.mode, `Proxy mode: ${view.mode.why}`);
  });

  it("says intercept with the service's pid when the service answers in intercept mode", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'postern-desktop-svc-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'agent.sock');
    const asked: string[] = [];
    const server = await ServiceSocketServer.listen({
      path,
      // The test's own user is the desktop's user here.
      policy: { allowGroup: undefined, allowUids: [process.getuid!()] },
      logger: silentLogger,
      handlers: {
        hello: () => ({
          version: '0.0.0',
          protocol: 1,
          mode: 'intercept',
          why: 'intercept mode is active',
          pid: 4321,
        }),
        status: () => {
          asked.push('status');
          return {
            mode: 'intercept',
            why: 'intercept mode is active',
            session: null,
            problem: null,
            services: [],
          };
        },
        subscribe: () => {
          asked.push('subscribe');
          return { subscribed: true };
        },
        submitCode: () => ({ accepted: false }),
      },
    });
    cleanup.push(() => server.close());
    const h = await started(path);
    const view = await servicesView();
    expect(view.mode).toEqual({ mode: 'intercept', why: 'the Postern service, pid 4321' });
    trayShows(h, view.mode, 'Intercept mode: the Postern service, pid 4321');
    // and it follows where the service reaches each service, to show those names instead of local ports
    await vi.waitFor(() => expect(asked).toEqual(['status', 'subscribe']), { timeout: 30_000 });
  });

  it("shows a service at the names the Postern service intercepts, else at the app's local ports", () => {
    const agent = {
      tunnel: {
        localAddresses: () =>
          new Map([
            ['wiki', ['127.0.0.1:8443']],
            ['crm', ['127.0.0.1:9443']],
          ]),
        carriedBy: () => new Map([['wiki', { name: 'edge-2', url: 'tls://127.0.0.1:3022' }]]),
      },
      services: () => [{ name: 'wiki' }, { name: 'crm' }],
    } as unknown as Parameters<typeof withLocalAddresses>[0];
    expect(withLocalAddresses(agent).map((r) => r.localAddresses)).toEqual([
      ['127.0.0.1:8443'],
      ['127.0.0.1:9443'],
    ]);
    const intercepted = new Map([['wiki', ['wiki.corp:443']]]);
    expect(withLocalAddresses(agent, intercepted).map((r) => r.localAddresses)).toEqual([
      ['wiki.corp:443'],
      ['127.0.0.1:9443'],
    ]);
    // the detail's "via edge-2": the router that carried the latest connection, none before the first
    expect(withLocalAddresses(agent).map((r) => r.carriedBy)).toEqual(['edge-2', null]);
  });
});
