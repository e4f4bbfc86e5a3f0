/**
 * What the agent says about itself at login: `envInfo` (the device) and `sdkInfo` (the software). The
 * controller keys MFA-timeout behaviour on `sdkInfo.type`, so it is Postern's own name, never ziti-sdk-c.
 */
import os from 'node:os';
import type { EnvInfo, SdkInfo } from '../../api/auth.js';
import { posternVersion } from '../../common/package-version.js';

export const SDK_TYPE = 'postern-agent';
export const APP_ID = 'postern';

export const AGENT_VERSION: string = posternVersion(import.meta.url);

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
