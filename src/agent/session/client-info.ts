/**
 * What the agent says about itself at login: `envInfo` (the device) and `sdkInfo` (the software). The
 * controller keys MFA-timeout behaviour on `sdkInfo.type`, so it is Postern's own name, never ziti-sdk-c.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EnvInfo, SdkInfo } from '../../api/auth.js';

export const SDK_TYPE = 'postern-agent';
export const APP_ID = 'postern';

/**
 * Postern's version from the nearest package.json named `postern`. Searched upwards because the file sits
 * at a different depth in the source tree, the build output and the packaged app.
 */
export const AGENT_VERSION: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 8; depth++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'postern' && pkg.version) return pkg.version;
    } catch {
      // not here; keep looking upwards
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return '0.0.0';
})();

/** `Linux`, `Darwin`, `Windows`: uname's sysname, as OpenZiti's SDKs report it. */
function osName(): string {
  const type = os.type();
  return type === 'Windows_NT' ? 'Windows' : type;
}

export function envInfo(): EnvInfo {
  return {
    os: osName(),
    arch: os.arch(),
    osRelease: os.release(),
    osVersion: os.version(),
    hostname: os.hostname(),
  };
}

export function sdkInfo(appVersion: string = AGENT_VERSION): SdkInfo {
  return { type: SDK_TYPE, version: AGENT_VERSION, appId: APP_ID, appVersion };
}

/** The OS name users know, for advice like "Update Linux to 6.8 or later". */
export function friendlyOsName(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') return 'Windows';
  if (platform === 'darwin') return 'macOS';
  if (platform === 'linux') return 'Linux';
  return platform;
}
