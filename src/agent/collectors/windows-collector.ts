import { stat } from 'node:fs/promises';
import { createExecFileRunner, runChecked, type CommandRunner } from './command-runner.js';
import { HashCache } from './hash-cache.js';
import { isWindowsProgramName } from './program-file.js';
import { collectMacAddresses, type NetworkInterfaceLister } from './mac-addresses.js';
import type {
  DomainPostureResponse,
  MacPostureResponse,
  OsPostureResponse,
  PostureCollector,
  ProcessPostureResponse,
  ProcessQuery,
} from './posture-collector.js';
import {
  DOMAIN_SCRIPT,
  OS_SCRIPT,
  PROCESS_LIST_SCRIPT,
  parseDomainOutput,
  parseOsOutput,
  parseProcessList,
  parseSignersOutput,
  powershellArgs,
  powershellPath,
  signersScript,
} from './windows-scripts.js';

export interface WindowsCollectorOptions {
  run?: CommandRunner;
  hashCache?: HashCache;
  networkInterfaces?: NetworkInterfaceLister;
  powershell?: string;
  /** Whether a queried binary exists; signatures are only read for files that do. */
  fileExists?: (path: string) => Promise<boolean>;
}

/**
 * Windows posture facts through PowerShell and CIM, which every supported Windows has, instead of a
 * native addon that would need building for each Electron ABI. Each call costs one PowerShell start
 * (a few hundred milliseconds), so the reporter should ask only for what the queries need.
 */
export class WindowsCollector implements PostureCollector {
  private readonly run: CommandRunner;
  private readonly hashCache: HashCache;
  private readonly networkInterfaces: NetworkInterfaceLister | undefined;
  private readonly powershell: string;
  private readonly fileExists: (path: string) => Promise<boolean>;

  constructor(options: WindowsCollectorOptions = {}) {
    this.run = options.run ?? createExecFileRunner();
    this.hashCache = options.hashCache ?? new HashCache();
    this.networkInterfaces = options.networkInterfaces;
    this.powershell = options.powershell ?? powershellPath();
    this.fileExists = options.fileExists ?? isFile;
  }

  async collectOs(id: string): Promise<OsPostureResponse> {
    const facts = parseOsOutput(await this.powershellOutput(OS_SCRIPT));
    return { id, typeId: 'OS', ...facts };
  }

  async collectMac(id: string): Promise<MacPostureResponse> {
    // libuv lists only adapters whose OperStatus is Up, so no extra probe is needed here.
    return { id, typeId: 'MAC', macAddresses: await collectMacAddresses(this.networkInterfaces) };
  }

  async collectDomain(id: string): Promise<DomainPostureResponse> {
    return { id, typeId: 'DOMAIN', domain: parseDomainOutput(await this.powershellOutput(DOMAIN_SCRIPT)) };
  }

  async collectProcesses(queries: readonly ProcessQuery[]): Promise<ProcessPostureResponse[]> {
    if (queries.length === 0) return [];
    // NTFS paths are case-insensitive, and CIM reports the on-disk casing while admins type their own.
    const running = new Set(parseProcessList(await this.powershellOutput(PROCESS_LIST_SCRIPT)).map(lower));
    const paths = uniqueByCase(queries.map((q) => q.path));
    const existing: string[] = [];
    for (const path of paths) if (await this.fileExists(path)) existing.push(path);
    const [signers, hashes] = await Promise.all([
      this.signers(existing),
      Promise.all(
        existing.map(
          async (path) =>
            [
              lower(path),
              await this.hashCache.hashOfProgram(
                path,
                running.has(lower(path)) || isWindowsProgramName(path),
              ),
            ] as const,
        ),
      ),
    ]);
    const hashByPath = new Map(hashes);
    return queries.map(({ id, path }) => ({
      id,
      typeId: 'PROCESS',
      path,
      isRunning: running.has(lower(path)),
      hash: hashByPath.get(lower(path)) ?? '',
      signerFingerprints: signers.get(lower(path)) ?? [],
    }));
  }

  /** A signature that cannot be read leaves the fingerprints empty rather than failing the report. */
  private async signers(paths: readonly string[]): Promise<Map<string, string[]>> {
    if (paths.length === 0) return new Map();
    try {
      return parseSignersOutput(await this.powershellOutput(signersScript(paths)));
    } catch {
      return new Map();
    }
  }

  private powershellOutput(script: string): Promise<string> {
    return runChecked(this.run, this.powershell, powershellArgs(script));
  }
}

function lower(path: string): string {
  return path.toLowerCase();
}

function uniqueByCase(paths: readonly string[]): string[] {
  const seen = new Map<string, string>();
  for (const path of paths) if (!seen.has(lower(path))) seen.set(lower(path), path);
  return [...seen.values()];
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
