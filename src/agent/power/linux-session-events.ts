/**
 * Lock, unlock, suspend and resume on Linux from D-Bus: logind on the system bus (Session.Lock/Unlock,
 * Manager.PrepareForSleep) and the desktop's screensaver on the session bus (ActiveChanged). It runs
 * `dbus-monitor` (or `gdbus monitor` where only GLib's tool is installed) rather than linking a D-Bus
 * library, and stays silent where neither a tool nor a bus exists: the events are a bonus, not a need.
 */
import { spawn as nodeSpawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { systemClock, type Clock } from '../../common/clock.js';
import { Listeners } from '../../common/listeners.js';
import { silentLogger, type AgentLogger } from '../../common/logger.js';
import { DbusSignalParser, logindSessionPath, powerEventOf } from './dbus-signal-parser.js';
import type { PowerEvent, PowerEventSource } from './power-events.js';

type Spawn = (command: string, args: readonly string[]) => ChildProcess;

export interface LinuxSessionEventsOptions {
  spawn?: Spawn;
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  logger?: AgentLogger;
  /** logind and the screensaver both report one unlock; repeats within this window are dropped. */
  debounceMs?: number;
}

interface Monitor {
  bus: 'system' | 'session';
  dbusMonitor: string[];
  gdbus: string[];
}

const MONITORS: Monitor[] = [
  {
    bus: 'system',
    dbusMonitor: [
      "type='signal',interface='org.freedesktop.login1.Session'",
      "type='signal',interface='org.freedesktop.login1.Manager',member='PrepareForSleep'",
    ],
    gdbus: ['--dest', 'org.freedesktop.login1'],
  },
  {
    bus: 'session',
    dbusMonitor: [
      "type='signal',interface='org.freedesktop.ScreenSaver',member='ActiveChanged'",
      "type='signal',interface='org.gnome.ScreenSaver',member='ActiveChanged'",
    ],
    gdbus: ['--dest', 'org.freedesktop.ScreenSaver'],
  },
];

const defaultSpawn: Spawn = (command, args) =>
  nodeSpawn(command, [...args], { stdio: ['ignore', 'pipe', 'pipe'] });

export class LinuxSessionEvents implements PowerEventSource {
  private readonly listeners = new Listeners<PowerEvent>();
  private readonly children = new Set<ChildProcess>();
  private readonly last = new Map<PowerEvent, number>();
  private readonly sessionPath: string | undefined;
  private readonly spawn: Spawn;
  private readonly clock: Clock;
  private readonly log: AgentLogger;
  private readonly debounceMs: number;
  private closed = false;

  constructor(options: LinuxSessionEventsOptions = {}) {
    const env = options.env ?? process.env;
    this.spawn = options.spawn ?? defaultSpawn;
    this.clock = options.clock ?? systemClock;
    this.log = options.logger ?? silentLogger;
    this.debounceMs = options.debounceMs ?? 2_000;
    this.sessionPath = env.XDG_SESSION_ID ? logindSessionPath(env.XDG_SESSION_ID) : undefined;
    for (const monitor of MONITORS) {
      if (monitor.bus === 'session' && !env.DBUS_SESSION_BUS_ADDRESS) continue;
      this.watch(monitor, 'dbus-monitor');
    }
  }

  subscribe(listener: (event: PowerEvent) => void): () => void {
    return this.listeners.on(listener);
  }

  close(): void {
    this.closed = true;
    for (const child of this.children) child.kill();
    this.children.clear();
    this.listeners.clear();
  }

  private watch(monitor: Monitor, tool: 'dbus-monitor' | 'gdbus'): void {
    const args =
      tool === 'dbus-monitor'
        ? [`--${monitor.bus}`, ...monitor.dbusMonitor]
        : ['monitor', `--${monitor.bus}`, ...monitor.gdbus];
    let child: ChildProcess;
    try {
      child = this.spawn(tool, args);
    } catch (error) {
      this.log.debug(`${tool} could not start: ${String(error)}`);
      return;
    }
    this.children.add(child);
    const parser = new DbusSignalParser();
    if (child.stdout) {
      createInterface({ input: child.stdout }).on('line', (line) => {
        for (const signal of parser.push(line)) {
          const event = powerEventOf(signal, this.sessionPath);
          if (event) this.raise(event);
        }
      });
    }
    child.stderr?.resume();
    child.on('error', (error: NodeJS.ErrnoException) => {
      this.children.delete(child);
      if (error.code === 'ENOENT' && tool === 'dbus-monitor' && !this.closed) {
        this.watch(monitor, 'gdbus');
        return;
      }
      this.log.debug(`${monitor.bus} bus lock/unlock events unavailable (${tool}: ${error.message})`);
    });
    child.on('exit', (code) => {
      this.children.delete(child);
      if (!this.closed)
        this.log.debug(
          `${tool} on the ${monitor.bus} bus exited (${String(code)}); no ${monitor.bus} bus events`,
        );
    });
  }

  private raise(event: PowerEvent): void {
    const now = this.clock.now();
    const previous = this.last.get(event);
    if (previous !== undefined && now - previous < this.debounceMs) return;
    this.last.set(event, now);
    this.log.debug(`session event: ${event}`);
    this.listeners.emit(event);
  }
}
