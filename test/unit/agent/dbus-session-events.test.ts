import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  DbusSignalParser,
  logindSessionPath,
  powerEventOf,
} from '../../../src/agent/power/dbus-signal-parser.js';
import { LinuxSessionEvents } from '../../../src/agent/power/linux-session-events.js';
import type { PowerEvent } from '../../../src/agent/power/power-events.js';
import { FakeClock, settle } from './fake-clock.js';

const fixture = (name: string) =>
  readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8').split('\n');

function eventsOf(lines: string[], sessionPath?: string): PowerEvent[] {
  const parser = new DbusSignalParser();
  return lines
    .flatMap((line) => parser.push(line))
    .map((s) => powerEventOf(s, sessionPath))
    .filter((e): e is PowerEvent => e !== undefined);
}

describe('D-Bus signal parser', () => {
  it('reads recorded dbus-monitor output: logind lock/unlock, sleep, screensaver', () => {
    expect(eventsOf(fixture('dbus-monitor-signals.txt'))).toEqual([
      'lock-screen',
      'unlock-screen',
      'unlock-screen',
      'suspend',
      'resume',
      'lock-screen',
      'unlock-screen',
    ]);
  });

  it("ignores other sessions' lock and unlock when it knows its own session", () => {
    expect(eventsOf(fixture('dbus-monitor-signals.txt'), logindSessionPath('2'))).toEqual([
      'lock-screen',
      'unlock-screen',
      'suspend',
      'resume',
      'lock-screen',
      'unlock-screen',
    ]);
  });

  it('reads gdbus monitor output', () => {
    expect(eventsOf(fixture('gdbus-monitor-signals.txt'))).toEqual([
      'lock-screen',
      'unlock-screen',
      'suspend',
      'resume',
    ]);
  });

  it('waits for the boolean argument on the next line before deciding', () => {
    const parser = new DbusSignalParser();
    expect(
      parser.push(
        'signal time=1 sender=:1.4 -> destination=(null destination) serial=2 path=/org/freedesktop/login1; interface=org.freedesktop.login1.Manager; member=PrepareForSleep',
      ),
    ).toEqual([]);
    expect(parser.push('   boolean false')).toEqual([
      {
        path: '/org/freedesktop/login1',
        iface: 'org.freedesktop.login1.Manager',
        member: 'PrepareForSleep',
        args: [false],
      },
    ]);
    expect(parser.push('   boolean true')).toEqual([]);
  });

  it('encodes session ids the way logind names their objects', () => {
    expect(logindSessionPath('2')).toBe('/org/freedesktop/login1/session/_32');
    expect(logindSessionPath('c12')).toBe('/org/freedesktop/login1/session/c12');
    expect(logindSessionPath('a-b')).toBe('/org/freedesktop/login1/session/a_2db');
  });
});

/** A child process that writes the given lines, or fails to start with ENOENT. */
function fakeChild(lines: string[] | 'missing'): ChildProcess {
  const child = new EventEmitter() as ChildProcess;
  const stdout = new PassThrough();
  Object.assign(child, { stdout, stderr: new PassThrough(), kill: () => true });
  setImmediate(() => {
    if (lines === 'missing')
      child.emit('error', Object.assign(new Error('spawn dbus-monitor ENOENT'), { code: 'ENOENT' }));
    else stdout.end(`${lines.join('\n')}\n`);
  });
  return child;
}

describe('LinuxSessionEvents', () => {
  it('turns monitor output into power events, dropping a repeated unlock from logind and the screensaver', async () => {
    const spawned: string[][] = [];
    const source = new LinuxSessionEvents({
      env: { XDG_SESSION_ID: '2' },
      clock: new FakeClock(),
      spawn: (command, args) => {
        spawned.push([command, ...args]);
        return fakeChild(fixture('dbus-monitor-signals.txt'));
      },
    });
    const events: PowerEvent[] = [];
    source.subscribe((e) => events.push(e));
    await settle();
    source.close();
    expect(spawned).toHaveLength(1); // no session bus in this environment: only the system bus
    expect(spawned[0]!.slice(0, 2)).toEqual(['dbus-monitor', '--system']);
    expect(events).toEqual(['lock-screen', 'unlock-screen', 'suspend', 'resume']);
  });

  it('falls back to gdbus when dbus-monitor is missing, and stays quiet when neither works', async () => {
    const spawned: string[] = [];
    const logged: string[] = [];
    const source = new LinuxSessionEvents({
      env: {},
      logger: {
        debug: (m) => logged.push(m),
        info() {},
        warn: (m) => logged.push(`WARN ${m}`),
        error: (m) => logged.push(`ERROR ${m}`),
      },
      spawn: (command) => {
        spawned.push(command);
        return fakeChild('missing');
      },
    });
    await settle();
    source.close();
    expect(spawned).toEqual(['dbus-monitor', 'gdbus']);
    expect(logged.some((m) => m.startsWith('WARN') || m.startsWith('ERROR'))).toBe(false);
  });
});
