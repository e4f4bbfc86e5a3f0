/**
 * Reads `dbus-monitor` and `gdbus monitor` output and picks out the signals that mean suspend, resume, lock
 * and unlock: logind's `Session.Lock`/`Unlock` and `Manager.PrepareForSleep(bool)`, and the screensavers'
 * `ActiveChanged(bool)`. Pure and line-based so it is tested with recorded output.
 */
import type { PowerEvent } from './power-events.js';

export interface DbusSignal {
  path: string;
  iface: string;
  member: string;
  args: (string | boolean | number)[];
}

/** How many arguments each signal of interest carries; others are skipped. */
const ARG_COUNT: Record<string, number> = { Lock: 0, Unlock: 0, PrepareForSleep: 1, ActiveChanged: 1 };

const SCREENSAVERS = new Set([
  'org.freedesktop.ScreenSaver',
  'org.gnome.ScreenSaver',
  'org.cinnamon.ScreenSaver',
  'org.mate.ScreenSaver',
]);

// dbus-monitor: `signal time=… sender=… -> destination=… serial=… path=/x; interface=a.b; member=M`
const MONITOR_HEADER =
  /^(signal|method call|method return|error)\b.*?\bpath=([^;]*);\s*interface=([^;]*);\s*member=(\S+)/;
const MONITOR_ARG = /^\s+(boolean|string|u?int(?:16|32|64)|byte|double|object path)\s+(.*)$/;
// gdbus monitor: `/org/freedesktop/login1: org.freedesktop.login1.Manager.PrepareForSleep (true,)`
const GDBUS_LINE = /^(\/\S*): ([\w.]+)\.(\w+) \((.*)\)\s*$/;

function argValue(type: string, text: string): string | boolean | number {
  if (type === 'boolean') return text.trim() === 'true';
  if (type === 'string' || type === 'object path') return text.trim().replace(/^"(.*)"$/, '$1');
  return Number(text.trim());
}

function gdbusArgs(text: string): (string | boolean | number)[] {
  return text
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '')
    .map((a) =>
      a === 'true'
        ? true
        : a === 'false'
          ? false
          : /^-?\d+(\.\d+)?$/.test(a)
            ? Number(a)
            : a.replace(/^'(.*)'$/, '$1'),
    );
}

/** Feed lines in order; each call returns the signals completed by that line. */
export class DbusSignalParser {
  private pending: DbusSignal | undefined;

  push(line: string): DbusSignal[] {
    const gdbus = GDBUS_LINE.exec(line);
    if (gdbus) {
      this.pending = undefined;
      const [, path, iface, member, args] = gdbus;
      return member! in ARG_COUNT
        ? [{ path: path!, iface: iface!, member: member!, args: gdbusArgs(args!) }]
        : [];
    }
    const header = MONITOR_HEADER.exec(line);
    if (header) {
      this.pending = undefined;
      const [, kind, path, iface, member] = header;
      if (kind !== 'signal' || !(member! in ARG_COUNT)) return [];
      const signal: DbusSignal = { path: path!, iface: iface!, member: member!, args: [] };
      if (ARG_COUNT[member!] === 0) return [signal];
      this.pending = signal;
      return [];
    }
    const arg = MONITOR_ARG.exec(line);
    if (arg && this.pending) {
      const signal = this.pending;
      signal.args.push(argValue(arg[1]!, arg[2]!));
      if (signal.args.length < (ARG_COUNT[signal.member] ?? 0)) return [];
      this.pending = undefined;
      return [signal];
    }
    return [];
  }
}

/**
 * logind's object path for a session id (sd_bus_path_encode): letters and digits stay, except a leading
 * digit; everything else becomes `_xx`.
 */
export function logindSessionPath(sessionId: string): string {
  const encoded = [...sessionId]
    .map((c, i) =>
      /[A-Za-z0-9]/.test(c) && !(i === 0 && /\d/.test(c))
        ? c
        : `_${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
    )
    .join('');
  return `/org/freedesktop/login1/session/${encoded}`;
}

/**
 * The power event a signal means, or undefined. With `sessionPath`, lock/unlock of other users' sessions
 * (logind broadcasts them all on the system bus) are ignored.
 */
export function powerEventOf(signal: DbusSignal, sessionPath?: string): PowerEvent | undefined {
  const flag = signal.args[0];
  if (signal.iface === 'org.freedesktop.login1.Session') {
    if (sessionPath && signal.path !== sessionPath) return undefined;
    if (signal.member === 'Lock') return 'lock-screen';
    if (signal.member === 'Unlock') return 'unlock-screen';
    return undefined;
  }
  if (
    signal.iface === 'org.freedesktop.login1.Manager' &&
    signal.member === 'PrepareForSleep' &&
    typeof flag === 'boolean'
  ) {
    return flag ? 'suspend' : 'resume';
  }
  if (SCREENSAVERS.has(signal.iface) && signal.member === 'ActiveChanged' && typeof flag === 'boolean') {
    return flag ? 'lock-screen' : 'unlock-screen';
  }
  return undefined;
}
