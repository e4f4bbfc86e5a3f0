import type { CommandRunner } from './command-runner.js';
import { HashCache } from './hash-cache.js';
import { LinuxCollector } from './linux-collector.js';
import { MacosCollector } from './macos-collector.js';
import type { NetworkInterfaceLister } from './mac-addresses.js';
import type { PostureCollector } from './posture-collector.js';
import { WindowsCollector } from './windows-collector.js';

export interface CreateCollectorOptions {
  /** Taken as a parameter (default `process.platform`) so tests can build any OS's collector. */
  platform?: NodeJS.Platform;
  /** Share one cache for the agent's lifetime; that is what makes re-collection cheap. */
  hashCache?: HashCache;
  run?: CommandRunner;
  networkInterfaces?: NetworkInterfaceLister;
}

export function createCollector(options: CreateCollectorOptions = {}): PostureCollector {
  const platform = options.platform ?? process.platform;
  const hashCache = options.hashCache ?? new HashCache();
  const { run, networkInterfaces } = options;
  switch (platform) {
    case 'linux':
      return new LinuxCollector({ hashCache, networkInterfaces });
    case 'win32':
      return new WindowsCollector({ hashCache, networkInterfaces, run });
    case 'darwin':
      return new MacosCollector({ hashCache, networkInterfaces, run });
    default:
      throw new Error(`posture collection is not supported on platform '${platform}'`);
  }
}
