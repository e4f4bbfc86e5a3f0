import { createExecFileRunner, runChecked, type CommandRunner } from './command-runner.js';
import { HashCache } from './hash-cache.js';
import { collectMacAddresses, type NetworkInterfaceLister } from './mac-addresses.js';
import type {
  DomainPostureResponse,
  MacPostureResponse,
  OsPostureResponse,
  PostureCollector,
  ProcessPostureResponse,
  ProcessQuery,
} from './posture-collector.js';

export interface MacosCollectorOptions {
  run?: CommandRunner;
  hashCache?: HashCache;
  networkInterfaces?: NetworkInterfaceLister;
}

// Absolute paths: a posture agent must not run whatever `ps` comes first on the user's PATH.
const SW_VERS = '/usr/bin/sw_vers';
const PS = '/bin/ps';

/** `14.5` → `14.5.0`: the controller parses versions as semver, which needs three parts. */
export function padVersion(version: string): string {
  const parts = version
    .trim()
    .split('.')
    .filter((p) => p.length > 0);
  while (parts.length < 3) parts.push('0');
  return parts.join('.');
}

/** `sw_vers` prints `Key:<tab>value` lines; older releases use spaces, so split on the first colon. */
export function parseSwVers(stdout: string): { productVersion: string; buildVersion: string } {
  const values = new Map<string, string>();
  for (const line of stdout.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) values.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const productVersion = values.get('ProductVersion') ?? '';
  if (!/^\d+(\.\d+)*$/.test(productVersion)) throw new Error(`no ProductVersion in sw_vers output`);
  return { productVersion, buildVersion: values.get('BuildVersion') ?? '' };
}

/**
 * macOS posture facts from `sw_vers` and `ps`. `ps -o comm` gives the full executable path for
 * applications and daemons alike. Signer fingerprints are left empty, as in the C SDK: signer
 * fingerprints (Authenticode) apply to Windows only.
 */
export class MacosCollector implements PostureCollector {
  private readonly run: CommandRunner;
  private readonly hashCache: HashCache;
  private readonly networkInterfaces: NetworkInterfaceLister | undefined;

  constructor(options: MacosCollectorOptions = {}) {
    this.run = options.run ?? createExecFileRunner();
    this.hashCache = options.hashCache ?? new HashCache();
    this.networkInterfaces = options.networkInterfaces;
  }

  async collectOs(id: string): Promise<OsPostureResponse> {
    const { productVersion, buildVersion } = parseSwVers(await runChecked(this.run, SW_VERS, []));
    return { id, typeId: 'OS', type: 'macOS', version: padVersion(productVersion), build: buildVersion };
  }

  async collectMac(id: string): Promise<MacPostureResponse> {
    return { id, typeId: 'MAC', macAddresses: await collectMacAddresses(this.networkInterfaces) };
  }

  async collectDomain(id: string): Promise<DomainPostureResponse> {
    return { id, typeId: 'DOMAIN', domain: '' };
  }

  async collectProcesses(queries: readonly ProcessQuery[]): Promise<ProcessPostureResponse[]> {
    if (queries.length === 0) return [];
    const stdout = await runChecked(this.run, PS, ['-axo', 'comm=']);
    // APFS is case-insensitive by default, and the C SDK compares macOS paths case-insensitively.
    const running = new Set(
      stdout
        .split('\n')
        .map((line) => line.trim().toLowerCase())
        .filter((line) => line.startsWith('/')),
    );
    const paths = [...new Set(queries.map((q) => q.path))];
    const hashes = new Map(
      await Promise.all(
        paths.map(
          async (path) =>
            [path, await this.hashCache.hashOfProgram(path, running.has(path.toLowerCase()))] as const,
        ),
      ),
    );
    return queries.map(({ id, path }) => ({
      id,
      typeId: 'PROCESS',
      path,
      isRunning: running.has(path.toLowerCase()),
      hash: hashes.get(path) ?? '',
      signerFingerprints: [],
    }));
  }
}
