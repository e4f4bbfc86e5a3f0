/**
 * The small adapters around the agent: powerMonitor as PowerEvents (with the Linux D-Bus source adding only
 * lock/unlock), the bundled controller's launch on a remembered loopback port, start at login on Linux,
 * the desktop settings file, and the shell opening a provider's page in the system browser.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../fakes/electron.js'));

const fake = await import('../../fakes/electron.js');
const { electronPowerEvents } = await import('../../../desktop/main/power-monitor.js');
const { PowerEventEmitter } = await import('../../../src/agent/power/power-events.js');
const { startBundledController } = await import('../../../desktop/main/bundled-controller.js');
const { LinuxAutostart } = await import('../../../desktop/main/start-at-login.js');
const { DesktopSettings } = await import('../../../desktop/agent/desktop-settings.js');
const { electronShell } = await import('../../../desktop/main/electron-shell.js');
type AppWindows = import('../../../desktop/main/windows.js').AppWindows;
type PowerEvent = import('../../../src/agent/power/power-events.js').PowerEvent;

let dir: string;
beforeEach(() => {
  fake.resetFakeElectron();
  dir = mkdtempSync(join(tmpdir(), 'postern-adapters-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('electronPowerEvents', () => {
  it('forwards powerMonitor events and stops on close', () => {
    const source = electronPowerEvents({ platform: 'win32' });
    const seen: PowerEvent[] = [];
    source.subscribe((e) => seen.push(e));
    for (const event of ['suspend', 'resume', 'lock-screen', 'unlock-screen']) fake.powerMonitor.emit(event);
    source.close();
    fake.powerMonitor.emit('resume');
    expect(seen).toEqual(['suspend', 'resume', 'lock-screen', 'unlock-screen']);
    expect(fake.powerMonitor.listenerCount('resume')).toBe(0);
  });

  it('adds lock and unlock from the Linux D-Bus source, but not its suspend/resume (Electron has those)', () => {
    const dbus = new PowerEventEmitter();
    const close = vi.spyOn(dbus, 'close');
    const source = electronPowerEvents({ platform: 'linux', linuxSource: () => dbus });
    const seen: PowerEvent[] = [];
    source.subscribe((e) => seen.push(e));
    dbus.emit('unlock-screen');
    dbus.emit('resume');
    fake.powerMonitor.emit('resume');
    expect(seen).toEqual(['unlock-screen', 'resume']);
    source.close();
    expect(close).toHaveBeenCalled();
  });
});

describe('startBundledController', () => {
  it('starts the controller process on the remembered port and remembers the one it got', async () => {
    writeFileSync(join(dir, 'bundled-port'), '41234\n');
    fake.utilityProcess.respond = () => ({ type: 'listening', url: 'http://127.0.0.1:41235', port: 41235 });
    const controller = await startBundledController({
      entry: '/app/out/main/controller-process.js',
      dataDir: dir,
    });
    const child = fake.utilityProcess.forked[0]!;
    expect(fake.utilityProcess.fork).toHaveBeenCalledWith(
      '/app/out/main/controller-process.js',
      [],
      expect.objectContaining({ serviceName: 'Postern controller' }),
    );
    expect(child.received).toEqual([{ dataDir: dir, port: 41234 }]);
    expect(controller.url).toBe('http://127.0.0.1:41235');
    expect(readFileSync(join(dir, 'bundled-port'), 'utf8').trim()).toBe('41235');
    expect(controller.adminPasswordFile).toBe(join(dir, 'admin-password'));
    await controller.stop();
    expect(child.kill).toHaveBeenCalled();
  });

  it('asks for any free port the first time, and reports a failed start', async () => {
    fake.utilityProcess.respond = () => ({ type: 'failed', message: 'database is locked' });
    await expect(startBundledController({ entry: '/e.js', dataDir: dir })).rejects.toThrow(
      'failed to start: database is locked',
    );
    expect(fake.utilityProcess.forked[0]!.received).toEqual([{ dataDir: dir, port: 0 }]);
  });
});

describe('start at login and settings', () => {
  it('writes and removes an XDG autostart entry that starts hidden', async () => {
    const autostart = new LinuxAutostart('/opt/Postern/postern', { XDG_CONFIG_HOME: dir });
    expect(await autostart.isEnabled()).toBe(false);
    await autostart.setEnabled(true);
    expect(await autostart.isEnabled()).toBe(true);
    expect(readFileSync(autostart.file, 'utf8')).toContain('Exec="/opt/Postern/postern" --hidden');
    await autostart.setEnabled(false);
    expect(existsSync(autostart.file)).toBe(false);
  });

  it('keeps the bundled-controller choice in a file and start-at-login in the OS', async () => {
    const autostart = new LinuxAutostart('/opt/Postern/postern', { XDG_CONFIG_HOME: dir });
    // The demo runs the bundled controller unless told otherwise; a packaged app only when asked.
    const settings = new DesktopSettings(join(dir, 'data'), autostart, true);
    expect(await settings.load()).toEqual({ startAtLogin: false, useBundledController: true });
    expect(await new DesktopSettings(join(dir, 'data'), autostart).load()).toMatchObject({
      useBundledController: false,
    });
    await settings.update({ useBundledController: false, startAtLogin: true });
    const again = new DesktopSettings(join(dir, 'data'), autostart, true);
    expect(await again.load()).toEqual({ startAtLogin: true, useBundledController: false });
  });
});

describe('the shell opening a page in the system browser', () => {
  it('opens http(s) pages (a provider sign-in) and refuses any other scheme', async () => {
    const autostart = new LinuxAutostart('/opt/Postern/postern', { XDG_CONFIG_HOME: dir });
    const shell = electronShell({} as AppWindows, new DesktopSettings(dir, autostart));
    fake.shell.openExternal.mockClear();
    await shell.openExternal(new URL('https://login.example.com/authorize?client_id=x'));
    expect(fake.shell.openExternal).toHaveBeenCalledWith('https://login.example.com/authorize?client_id=x');
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share'])
      await expect(shell.openExternal(new URL(url))).rejects.toThrow(/not a web address/);
    expect(fake.shell.openExternal).toHaveBeenCalledTimes(1);
  });
});
