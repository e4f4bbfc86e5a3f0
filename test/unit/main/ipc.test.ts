/**
 * The IPC boundary: every schema channel is bound, a request from anything but the app's own top frame is
 * refused before its handler runs, payloads are validated in main, errors travel as data, events reach only
 * the app's windows, and the preload exposes exactly the schema's API.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../fakes/electron.js'));

const fake = await import('../../fakes/electron.js');
const { bindIpcHandlers, createWindowEvents } = await import('../../../desktop/main/ipc-main.js');
const { isTrustedSender } = await import('../../../desktop/main/security.js');
const { channels } = await import('../../../desktop/ipc/bridge.js');
const { ipcSchema } = await import('../../../desktop/ipc/schema.js');
const { ControllerError } = await import('../../../src/controller-client/controller-error.js');
type IpcHandlers = import('../../../desktop/ipc/bridge.js').IpcHandlers;

const APP = 'postern://app/index.html#/services';
const session = {
  status: 'signed-in',
  controllerUrl: null,
  username: 'alice',
  identityName: 'alice',
  reachable: true,
  mfa: 'enrolled',
  message: null,
} as const;

/** Handlers that record calls; every one answers something harmless. */
function recordingHandlers() {
  const calls: string[] = [];
  const handlers: Record<string, Record<string, (request: unknown) => unknown>> = {};
  for (const { group, key, channel } of channels()) {
    if (channel.kind !== 'invoke') continue;
    (handlers[group] ??= {})[key] = (request) => {
      calls.push(`${group}:${key}`);
      return group === 'session' ? session : (request ?? null);
    };
  }
  return { calls, handlers: handlers as unknown as IpcHandlers };
}

beforeEach(() => fake.resetFakeElectron());

describe('binding', () => {
  it('registers a handler for every invoke channel of the schema, and nothing else', () => {
    const { handlers } = recordingHandlers();
    const unbind = bindIpcHandlers(handlers, { isTrusted: (f) => isTrustedSender(f) });
    const expected = channels()
      .filter((c) => c.channel.kind === 'invoke')
      .map((c) => c.name);
    expect([...fake.ipcMain.handlers.keys()].sort()).toEqual(expected.sort());
    expect(expected).toContain('session:signIn');
    expect(expected).toContain('prompt:answer');
    unbind();
    expect(fake.ipcMain.handlers.size).toBe(0);
  });
});

describe('sender check', () => {
  it.each([
    ['a remote page', 'https://evil.example/'],
    ['a file page', 'file:///tmp/index.html'],
    ['another host of the app scheme', 'postern://evil/index.html'],
    ['a destroyed frame', null],
  ])('refuses %s before the handler runs', async (_what, url) => {
    const { calls, handlers } = recordingHandlers();
    const refused: string[] = [];
    bindIpcHandlers(handlers, { isTrusted: (f) => isTrustedSender(f), onRefused: (c) => refused.push(c) });
    const result = await fake.ipcMain.invokeFrom(url, 'session:signOut');
    expect(result).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    expect(calls).toEqual([]);
    expect(refused).toEqual(['session:signOut']);
  });

  it('refuses a subframe even when it shows an app page', async () => {
    const { calls, handlers } = recordingHandlers();
    bindIpcHandlers(handlers, { isTrusted: (f) => isTrustedSender(f) });
    const handler = fake.ipcMain.handlers.get('session:get')!;
    const frame = new fake.FakeWebFrameMain(APP, new fake.FakeWebFrameMain(APP));
    expect(await handler({ senderFrame: frame }, undefined)).toMatchObject({
      ok: false,
      error: { code: 'FORBIDDEN' },
    });
    expect(calls).toEqual([]);
  });

  it('answers the app itself', async () => {
    const { calls, handlers } = recordingHandlers();
    bindIpcHandlers(handlers, { isTrusted: (f) => isTrustedSender(f) });
    expect(await fake.ipcMain.invokeFrom(APP, 'session:get')).toEqual({ ok: true, value: session });
    expect(calls).toEqual(['session:get']);
  });
});

describe('payload validation', () => {
  const signIn = { controllerUrl: 'https://ctl.example:1280', username: 'alice', password: 'pw' };
  it.each([
    ['session:signIn', { ...signIn, controllerUrl: 'file:///etc/passwd' }],
    ['session:signIn', { ...signIn, controllerUrl: 'https://user:pw@ctl.example' }],
    ['session:signIn', { ...signIn, admin: true }],
    ['session:signIn', { ...signIn, password: 'x'.repeat(5000) }],
    ['session:signIn', 'alice'],
    ['mfa:verifyEnrollment', { code: '12345' }],
    ['mfa:verifyEnrollment', { code: 123456 }],
    ['mfa:verifyEnrollment', { code: '<img src=x>' }],
    ['prompt:answer', { promptId: -1, code: '123456' }],
    ['prompt:answer', { promptId: 1 }],
    ['mfa:saveRecoveryCodes', { codes: [] }],
    ['mfa:saveRecoveryCodes', { codes: ['../../x'] }],
    ['settings:update', { startAtLogin: 'yes' }],
    ['app:show', 'devtools'],
    ['session:get', { unexpected: true }],
    ['services:copyAddress', { address: 'evil.example:443' }],
    ['services:copyAddress', { address: '127.0.0.1:80\nrm -rf ~' }],
    ['services:copyAddress', {}],
    ['session:providers', { controllerUrl: 'javascript:alert(1)' }],
    ['session:providers', {}],
    ['session:signInWithProvider', { controllerUrl: 'https://ctl.example', providerId: '' }],
    ['session:signInWithProvider', { controllerUrl: 'https://ctl.example', providerId: 'x'.repeat(300) }],
    ['session:signInWithProvider', { controllerUrl: 'file:///etc/passwd', providerId: 'p1' }],
    ['session:signInWithProvider', { controllerUrl: 'https://ctl.example', providerId: 'p1', url: 'x' }],
  ])('refuses %s with %j', async (channel, payload) => {
    const { calls, handlers } = recordingHandlers();
    bindIpcHandlers(handlers, { isTrusted: (f) => isTrustedSender(f) });
    expect(await fake.ipcMain.invokeFrom(APP, channel, payload)).toMatchObject({
      ok: false,
      error: { code: 'INVALID_REQUEST' },
    });
    expect(calls).toEqual([]);
  });

  it.each([
    ['session:signIn', signIn],
    ['mfa:verifyEnrollment', { code: '123456' }],
    ['mfa:remove', {}],
    ['mfa:remove', { code: 'ABCD-2345-WXYZ' }],
    ['prompt:answer', { promptId: 3, code: 'abcd 2345 wxyz' }],
    ['settings:update', { startAtLogin: true }],
    ['app:show', 'mfa'],
    ['services:copyAddress', { address: '127.0.0.1:8443' }],
    ['services:copyAddress', { address: '[::1]:8443' }],
    ['session:providers', { controllerUrl: 'https://ctl.example:1280' }],
    ['session:signInWithProvider', { controllerUrl: 'https://ctl.example:1280', providerId: 'p1' }],
  ])('passes %s with %j to its handler', async (channel, payload) => {
    const { calls, handlers } = recordingHandlers();
    bindIpcHandlers(handlers, { isTrusted: (f) => isTrustedSender(f) });
    expect(await fake.ipcMain.invokeFrom(APP, channel, payload)).toMatchObject({ ok: true });
    expect(calls).toEqual([channel]);
  });
});

describe('errors', () => {
  it('travel as data, with words the user can act on', async () => {
    const { handlers } = recordingHandlers();
    handlers.mfa.verifyEnrollment = () => {
      throw new ControllerError({ status: 400, code: 'MFA_INVALID_TOKEN', message: 'invalid token' });
    };
    handlers.services.checkAgain = () => {
      throw new ControllerError({
        status: 429,
        code: 'RATE_LIMITED',
        message: 'slow down',
        retryAfterMs: 30_000,
      });
    };
    bindIpcHandlers(handlers, { isTrusted: (f) => isTrustedSender(f) });
    expect(await fake.ipcMain.invokeFrom(APP, 'mfa:verifyEnrollment', { code: '123456' })).toEqual({
      ok: false,
      error: {
        code: 'MFA_INVALID_TOKEN',
        message: 'That code was not accepted. Enter the current code from your authenticator app.',
      },
    });
    expect(await fake.ipcMain.invokeFrom(APP, 'services:checkAgain')).toEqual({
      ok: false,
      error: { code: 'RATE_LIMITED', message: 'Too many attempts; try again in 30 s.' },
    });
  });
});

describe('events', () => {
  it('reach only windows showing the app', async () => {
    const app = new fake.BrowserWindow();
    await app.loadURL(APP);
    const other = new fake.BrowserWindow();
    await other.loadURL('https://evil.example/');
    createWindowEvents().session.changed(session);
    expect(app.webContents.sentOn('session:changed')).toEqual([session]);
    expect(other.webContents.sent).toEqual([]);
  });
});

describe('preload', () => {
  it('exposes exactly the schema as window.postern, forwarding each call to its channel', async () => {
    await import('../../../desktop/main/preload.js');
    expect(fake.contextBridge.exposeInMainWorld).toHaveBeenCalledTimes(1);
    expect(fake.contextBridge.exposeInMainWorld.mock.calls[0]![0]).toBe('postern');
    const api = fake.contextBridge.exposed.postern as Record<
      string,
      Record<string, (...args: unknown[]) => unknown>
    >;
    expect(Object.keys(api).sort()).toEqual(Object.keys(ipcSchema).sort());
    for (const [group, declared] of Object.entries(ipcSchema)) {
      const expected = Object.entries(declared).map(([key, c]) =>
        c.kind === 'invoke' ? key : `on${key[0]!.toUpperCase()}${key.slice(1)}`,
      );
      expect(Object.keys(api[group]!).sort()).toEqual(expected.sort());
    }
    fake.ipcRenderer.invoke.mockResolvedValueOnce({ ok: true, value: session });
    await expect(api.session!.get!()).resolves.toEqual({ ok: true, value: session });
    expect(fake.ipcRenderer.invoke).toHaveBeenCalledWith('session:get', undefined);
    const seen: unknown[] = [];
    const off = api.services!.onChanged!((v: unknown) => seen.push(v)) as () => void;
    fake.ipcRenderer.emit('services:changed', {}, { services: [], updatedAt: 1 });
    off();
    fake.ipcRenderer.emit('services:changed', {}, { services: [], updatedAt: 2 });
    expect(seen).toEqual([{ services: [], updatedAt: 1 }]);
  });
});
