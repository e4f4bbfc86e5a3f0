/**
 * A package database of the test's own in a throw-away folder, so the prerequisite check can meet a
 * missing package without anything on this machine being removed or installed. Its `dpkg-query` is the real
 * one reading a status file we write (--admindir); its `apt-get` only records how it was called and, for
 * `install`, marks the packages installed in that status file. Put `bin` first on PATH.
 */
import {
  accessSync,
  chmodSync,
  constants,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REAL_DPKG_QUERY = '/usr/bin/dpkg-query';

export function hasRealDpkgQuery(): boolean {
  try {
    accessSync(REAL_DPKG_QUERY, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface FakeDebianOptions {
  /** Package name to its dpkg Status ("install ok installed", "deinstall ok config-files", ...). */
  packages: Record<string, string>;
  /** What the fake `apt-get install` exits with; anything but 0 leaves the database as it was. */
  installExitCode?: number;
}

export interface FakeDebian {
  bin: string;
  /** The arguments of each apt-get call, one string per call. */
  aptGetCalls(): string[];
  remove(): void;
}

function stanza(name: string, status: string): string {
  // Status straight after Package: the fake apt-get finds it by that order.
  return `Package: ${name}\nStatus: ${status}\nArchitecture: all\nVersion: 1\nMaintainer: test <test@example.invalid>\nDescription: test\n`;
}

function writeExecutable(path: string, text: string): void {
  writeFileSync(path, text);
  chmodSync(path, 0o755);
}

export function fakeDebian({ packages, installExitCode = 0 }: FakeDebianOptions): FakeDebian {
  const root = mkdtempSync(join(tmpdir(), 'postern-fake-debian-'));
  const bin = join(root, 'bin');
  const admin = join(root, 'dpkg');
  const status = join(admin, 'status');
  const log = join(root, 'apt-get.log');
  mkdirSync(bin);
  mkdirSync(admin);
  // Readable, and the log writable, by an unprivileged user too: a stray apt-get call must show in the log.
  chmodSync(root, 0o755);
  writeFileSync(
    status,
    Object.entries(packages)
      .map(([name, s]) => stanza(name, s))
      .join('\n'),
  );
  chmodSync(status, 0o666);
  writeFileSync(log, '');
  chmodSync(log, 0o666);

  writeExecutable(join(bin, 'dpkg-query'), `#!/bin/sh\nexec ${REAL_DPKG_QUERY} --admindir='${admin}' "$@"\n`);
  writeExecutable(
    join(bin, 'apt-get'),
    `#!/bin/sh
echo "$*" >> '${log}'
[ "$1" = install ] || exit 0
[ ${installExitCode} -eq 0 ] || exit ${installExitCode}
for arg; do
  case "$arg" in
    install|-*) ;;
    *) sed -i "/^Package: $arg\\$/{n;s/^Status: .*/Status: install ok installed/}" '${status}' ;;
  esac
done
`,
  );

  return {
    bin,
    aptGetCalls: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
