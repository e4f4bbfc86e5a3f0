/**
 * The composition root with the fake electron module and the real agent core (against a recording
 * controller): an unlock-screen from powerMonitor sends ENDPOINT_STATE and raises one prompt (a single
 * notification and the always-on-top TOTP window), a code typed there reaches the controller; the tray
 * follows the service state; IPC from a foreign page changes nothing.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../fakes/electron.js'));

const fake = await import('../../fakes/electron.js');
const { startDesktopHarness } = await import('../../helpers/desktop-app-harness.js');
const { GOOD_CODE, serviceWith } = await import('../../helpers/desktop-recording-controller.js');
type DesktopHarness = import('../../helpers/desktop-app-harness.js').DesktopHarness;
type PromptView = import('../../../desktop/ipc/views.js').PromptView;

const MAIN = 'postern://app/index.html#/services';
const PROMPT = 'postern://app/index.html#/prompt';

let h: DesktopHarness;
beforeEach(async () => {
  fake.resetFakeElectron();
  h = await startDesktopHarness();
});
afterEach(() => h.dispose());

const signIn = () =>
  fake.ipcMain.invokeFrom(MAIN, 'session:signIn', {
    controllerUrl: h.controller.url,
    username: 'alice',
    password: 'pw',
  });

const promptWindow = () =>
  fake.BrowserWindow.all.find((w) => !w.destroyed && w.webContents.getURL() === PROMPT);
/** What the prompt window's renderer reads when it loads: the open prompt. */
const currentPrompt = async () =>
  ((await fake.ipcMain.invokeFrom(PROMPT, 'prompt:get')) as { value: PromptView | null }).value;
/** What it is told afterwards. */
const lastEvent = () => promptWindow()!.webContents.sentOn('prompt:changed').at(-1) as PromptView | null;

describe('unlock-screen', () => {
  it('sends ENDPOINT_STATE at once and raises one prompt with the grace countdown', async () => {
    h.controller.setServices([serviceWith('svc-wiki', 'wiki', [{ queryType: 'MFA', promptOnUnlock: true }])]);
    expect(await signIn()).toMatchObject({ ok: true, value: { status: 'signed-in' } });
    h.controller.endpointStateReply = [
      { id: 'svc-wiki', name: 'wiki', postureQueryType: 'MFA', timeout: 300, timeoutRemaining: 300 },
    ];

    fake.powerMonitor.emit('unlock-screen');

    const sent = await h.controller.waitFor((r) => r.path === '/posture-response');
    expect(sent.body).toMatchObject({ typeId: 'ENDPOINT_STATE', unlocked: true });
    expect(sent.body).not.toHaveProperty('woken');
    await vi.waitFor(() => expect(promptWindow()).toBeDefined());
    const window = promptWindow()!;
    expect(window.isAlwaysOnTop()).toBe(true);
    expect(window.visible).toBe(true);
    expect(fake.Notification.shown).toHaveLength(1);
    expect(fake.Notification.shown[0]!.options.title).toBe('Screen unlocked: authenticator code needed');
    expect(fake.Notification.shown[0]!.options.body).toMatch(
      /^Enter your code within (4:5\d|5:00) to keep access to wiki$/,
    );
    const prompt = (await currentPrompt())!;
    expect(prompt).toMatchObject({
      reason: 'unlock',
      services: [{ id: 'svc-wiki', name: 'wiki' }],
      attempt: 1,
      acceptsRecoveryCode: true,
    });
    expect(prompt.deadline! - Date.now()).toBeGreaterThan(290_000);
    // The tray says a code is needed.
    expect(h.desktop.tray!.current).toBe('mfa-needed');

    // A wake right after joins the open prompt: still one notification.
    fake.powerMonitor.emit('resume');
    await h.controller.waitFor(
      (r) => r.path === '/posture-response' && (r.body as { woken?: boolean }).woken === true,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fake.Notification.shown).toHaveLength(1);

    // A wrong code asks again in the same window, saying why; the right one closes it.
    expect(
      await fake.ipcMain.invokeFrom(PROMPT, 'prompt:answer', { promptId: prompt.id, code: '000000' }),
    ).toEqual({ ok: true, value: undefined });
    await vi.waitFor(() =>
      expect(lastEvent()).toMatchObject({
        id: prompt.id,
        attempt: 2,
        error: expect.stringMatching(/not accepted/),
      }),
    );
    await fake.ipcMain.invokeFrom(PROMPT, 'prompt:answer', { promptId: prompt.id, code: GOOD_CODE });
    await vi.waitFor(() => expect(promptWindow()).toBeUndefined());
    expect(await currentPrompt()).toBeNull();
    const codes = h.controller.requests
      .filter((r) => r.path === '/authenticate/mfa')
      .map((r) => (r.body as { code: string }).code);
    expect(codes).toEqual(['000000', GOOD_CODE]);
    expect(fake.Notification.shown).toHaveLength(1);
  });

  it('raises no prompt when no MFA check prompts on unlock', async () => {
    h.controller.setServices([serviceWith('svc-git', 'git', [{ queryType: 'OS', isPassing: true }])]);
    await signIn();
    fake.powerMonitor.emit('unlock-screen');
    await h.controller.waitFor((r) => r.path === '/posture-response');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(promptWindow()).toBeUndefined();
    expect(fake.Notification.shown).toHaveLength(0);
  });
});

describe('tray', () => {
  it('follows the service state', async () => {
    expect(h.desktop.tray!.current).toBe('disconnected');
    h.controller.setServices([serviceWith('svc-wiki', 'wiki', [{ queryType: 'OS', isPassing: true }])]);
    await signIn();
    await vi.waitFor(() => expect(h.desktop.tray!.current).toBe('all-reachable'));

    h.controller.setServices([serviceWith('svc-wiki', 'wiki', [{ queryType: 'OS', isPassing: false }])]);
    await fake.ipcMain.invokeFrom(MAIN, 'services:checkAgain');
    expect(h.desktop.tray!.current).toBe('some-blocked');
    // The first line is the state; the second the tunnel's mode (desktop-service-mode.test.ts).
    expect(fake.Tray.all[0]!.tooltip.split('\n')[0]).toBe('Postern: 1 of 1 service blocked');

    h.controller.setServices([
      serviceWith('svc-wiki', 'wiki', [{ queryType: 'MFA', isPassing: false, timeoutRemaining: 0 }]),
    ]);
    await fake.ipcMain.invokeFrom(MAIN, 'services:checkAgain');
    expect(h.desktop.tray!.current).toBe('mfa-needed');

    await fake.ipcMain.invokeFrom(MAIN, 'session:signOut');
    expect(h.desktop.tray!.current).toBe('disconnected');
    // The main window heard about each change.
    const main = fake.BrowserWindow.all.find((w) => w.webContents.getURL() === MAIN)!;
    expect(main.webContents.sentOn('services:changed').length).toBeGreaterThanOrEqual(3);
  });
});

describe('a warned service', () => {
  it('turns the tray to its own state and notifies once, not on every redraw', async () => {
    h.controller.setServices([
      serviceWith('svc-wiki', 'wiki', [
        {
          queryType: 'OS',
          isPassing: true,
          reason: { code: 'OS_VERSION_OUT_OF_RANGE', osType: 'Linux', osVersion: '6.8.0' },
          warning: { enforceFrom: '2099-03-03T09:00:00.000Z' },
        },
      ]),
    ]);
    await signIn();
    await vi.waitFor(() => expect(h.desktop.tray!.current).toBe('some-warned'));
    expect(fake.Tray.all[0]!.tooltip.split('\n')[0]).toMatch(
      /^Postern: wiki will be blocked from 3 March 2099, /,
    );
    await vi.waitFor(() => expect(fake.Notification.shown).toHaveLength(1));
    expect(fake.Notification.shown[0]!.options.title).toMatch(/^wiki will be blocked from 3 March 2099, /);
    expect(fake.Notification.shown[0]!.options.body).toMatch(/^From 3 March 2099, \d\d:\d\d: Update Linux/);

    await fake.ipcMain.invokeFrom(MAIN, 'services:checkAgain');
    await fake.ipcMain.invokeFrom(MAIN, 'services:checkAgain');
    // Reviews run one after another, each after the last one is recorded: give the queued ones a moment.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fake.Notification.shown).toHaveLength(1);
  });
});

describe('IPC from a foreign page', () => {
  it('is refused and reaches neither the agent nor the controller', async () => {
    const result = await fake.ipcMain.invokeFrom('https://evil.example/', 'session:signIn', {
      controllerUrl: h.controller.url,
      username: 'alice',
      password: 'pw',
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    expect(h.controller.requests).toEqual([]);
    expect(h.desktop.agent.session().status).toBe('signed-out');
  });
});

describe('launch', () => {
  beforeEach(() => h.dispose());

  it('starts the bundled controller, seeds the demo on first run and signs in as the demo user', async () => {
    const seedDemo = vi.fn(async () => ({ username: 'demo', password: 'demo-password' }));
    h = await startDesktopHarness({
      bundled: true,
      seedDemo,
      beforeStart: (controller) => {
        fake.utilityProcess.respond = () => ({
          type: 'listening',
          url: controller.url,
          port: Number(new URL(controller.url).port),
        });
      },
    });
    expect(fake.utilityProcess.fork).toHaveBeenCalledTimes(1);
    expect(seedDemo).toHaveBeenCalledWith(h.controller.url, expect.stringMatching(/admin-password$/));
    const login = await h.controller.waitFor((r) => r.path === '/authenticate');
    expect(login.body).toMatchObject({ username: 'demo', password: 'demo-password' });
    expect(h.desktop.agent.session()).toMatchObject({ status: 'signed-in', controllerUrl: h.controller.url });
  });

  it('goes back to the controller the user chose instead of seeding the bundled one', async () => {
    const seedDemo = vi.fn(async () => ({ username: 'demo', password: 'demo-password' }));
    h = await startDesktopHarness({
      bundled: true,
      seedDemo,
      savedControllerUrl: (controller) => controller.url,
      beforeStart: () => {
        fake.utilityProcess.respond = () => ({ type: 'listening', url: 'http://127.0.0.1:1', port: 1 });
      },
    });
    expect(seedDemo).not.toHaveBeenCalled();
    // Nothing in the keychain for it: the sign-in screen, pre-filled with that controller.
    expect(h.desktop.agent.session()).toMatchObject({
      status: 'signed-out',
      controllerUrl: h.controller.url,
    });
    expect(fake.BrowserWindow.all.some((w) => w.visible)).toBe(true);
  });
});
