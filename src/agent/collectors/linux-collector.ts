import { readdir, readlink, realpath } from 'node:fs/promises';
import { release as osRelease, version as osVersion } from 'node:os';
import { join } from 'node:path';
import { HashCache } from './hash-cache.js';
import { collectMacAddresses, sysfsOperstateProbe, type NetworkInterfaceLister } from './mac-addresses.js';
import type {
  DomainPostureResponse,
  MacPostureResponse,
  OsPostureResponse,
  PostureCollector,
  ProcessPostureResponse,
  ProcessQuery,
} from './posture-collector.js';

export interface LinuxCollectorOptions {
  /** Root of the proc filesystem; tests point it at a fake tree. */
  procRoot?: string;
  /** Root of sysfs, for interface operstate. */
  sysRoot?: string;
  hashCache?: HashCache;
  networkInterfaces?: NetworkInterfaceLister;
  /** uname release and version; injectable so the OS answer can be tested exactly. */
  kernel?: { release(): string; version(): string };
}

const DELETED_SUFFIX = ' (deleted)';

/**
 * Linux posture facts. Process paths come from `/proc/<pid>/exe`, which is the kernel's own record of
 * the executable; `ps` output and systeminformation give only a guessed directory (OpenZiti's C SDK
 * learned this the hard way), which a posture check must not trust.
 */
export class LinuxCollector implements PostureCollector {
  private readonly procRoot: string;
  private readonly sysRoot: string;
  private readonly hashCache: HashCache;
  private readonly networkInterfaces: NetworkInterfaceLister | undefined;
  private readonly kernel: { release(): string; version(): string };

  constructor(options: LinuxCollectorOptions = {}) {
    this.procRoot = options.procRoot ?? '/proc';
    this.sysRoot = options.sysRoot ?? '/sys';
    this.hashCache = options.hashCache ?? new HashCache();
    this.networkInterfaces = options.networkInterfaces;
    this.kernel = options.kernel ?? { release: osRelease, version: osVersion };
  }

  async collectOs(id: string): Promise<OsPostureResponse> {
    // The kernel release, not the distribution version: it is what admins write OS checks against. Its
    // distribution tag (`-45-generic`) is the build, not a semver prerelease, which would put 6.8.0-45
    // below 6.8.0 and fail `>=6.8.0`.
    return { id, typeId: 'OS', type: 'Linux', ...splitKernelRelease(this.kernel.release()) };
  }

  async collectMac(id: string): Promise<MacPostureResponse> {
    const macAddresses = await collectMacAddresses(this.networkInterfaces, sysfsOperstateProbe(this.sysRoot));
    return { id, typeId: 'MAC', macAddresses };
  }

  async collectDomain(id: string): Promise<DomainPostureResponse> {
    return { id, typeId: 'DOMAIN', domain: '' };
  }

  async collectProcesses(queries: readonly ProcessQuery[]): Promise<ProcessPostureResponse[]> {
    if (queries.length === 0) return [];
    const running = await this.runningExecutables();
    const paths = [...new Set(queries.map((q) => q.path))];
    const facts = new Map(
      await Promise.all(
        paths.map(async (path) => {
          const isRunning = running.has(path) || running.has(await resolved(path));
          return [path, { isRunning, hash: await this.hashCache.hashOfProgram(path, isRunning) }] as const;
        }),
      ),
    );
    return queries.map(({ id, path }) => {
      const fact = facts.get(path) ?? { isRunning: false, hash: '' };
      return { id, typeId: 'PROCESS', path, ...fact, signerFingerprints: [] };
    });
  }

  /**
   * Every readable `/proc/<pid>/exe` target. Processes vanish between readdir and readlink (ENOENT),
   * kernel threads have no exe (ENOENT), and other users' processes are unreadable without root
   * (EACCES): all of these simply do not match, as in the C SDK.
   */
  private async runningExecutables(): Promise<Set<string>> {
    const pids = (await readdir(this.procRoot)).filter((name) => /^\d+$/.test(name));
    const targets = await Promise.all(
      pids.map((pid) => readlink(join(this.procRoot, pid, 'exe')).catch(() => undefined)),
    );
    const paths = new Set<string>();
    for (const target of targets) {
      if (target === undefined) continue;
      // A binary replaced on disk (a package upgrade) still runs from the old inode; it is still the
      // program at that path as far as the user and the policy are concerned.
      paths.add(target.endsWith(DELETED_SUFFIX) ? target.slice(0, -DELETED_SUFFIX.length) : target);
    }
    return paths;
  }
}

/**
 * The query path with symlinks resolved: `/proc/<pid>/exe` always names the real file, so a check
 * written as `/bin/sleep` on a merged-/usr system must also match `/usr/bin/sleep`.
 */
async function resolved(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return path;
  }
}

/** `6.8.0-45-generic` → version `6.8.0`, build `45-generic`; `5.15.167.4-microsoft` → `5.15.167`, `4-microsoft`. */
export function splitKernelRelease(release: string): { version: string; build: string } {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?[.\-+_]?(.*)$/.exec(release.trim());
  if (!m) return { version: release.trim(), build: '' };
  return { version: `${m[1]}.${m[2]}.${m[3] ?? '0'}`, build: m[4] ?? '' };
}
