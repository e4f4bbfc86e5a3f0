/**
 * Which mode this machine's agent is in, and why, for every surface (CLI `status`, the desktop's window and
 * tray): intercept when the Postern service answers and says intercept is active; otherwise proxy, with
 * the reason in words (not installed, not running, not allowed, or the service's own reason).
 */
import { existsSync } from 'node:fs';
import { ServiceClient, ServiceError } from './service-client.js';
import type { ServiceMode } from './service-protocol.js';

export interface ModeReport {
  mode: ServiceMode;
  why: string;
  /** the service's pid, when it answered */
  pid?: number;
}

/** Where a package installs the service's definition; one present means "installed, not running". */
export const INSTALLED_MARKERS = [
  '/etc/systemd/system/postern-agent.service',
  '/lib/systemd/system/postern-agent.service',
  '/usr/lib/systemd/system/postern-agent.service',
  '/Library/LaunchDaemons/com.postern.agent.plist',
];

export async function serviceMode(
  socketPath: string,
  options: { timeoutMs?: number; installed?: () => boolean } = {},
): Promise<ModeReport> {
  const installed = options.installed ?? (() => INSTALLED_MARKERS.some((file) => existsSync(file)));
  let client: ServiceClient | undefined;
  try {
    client = await ServiceClient.connect(socketPath, options.timeoutMs);
    const hello = await client.request('hello');
    if (hello.mode === 'intercept')
      return { mode: 'intercept', why: `the Postern service, pid ${hello.pid}`, pid: hello.pid };
    return {
      mode: 'proxy',
      why: `the Postern service (pid ${hello.pid}) runs in proxy mode: ${hello.why}`,
      pid: hello.pid,
    };
  } catch (error) {
    return { mode: 'proxy', why: whyNot(error, socketPath, installed) };
  } finally {
    client?.close();
  }
}

function whyNot(error: unknown, socketPath: string, installed: () => boolean): string {
  if (!(error instanceof ServiceError)) return `the Postern service could not be asked: ${String(error)}`;
  if (error.code === 'NOT_ALLOWED') return `you are not allowed to use the Postern service: ${error.message}`;
  switch (error.errno) {
    case 'ENOENT':
      return installed()
        ? `the Postern service is not running (no socket at ${socketPath})`
        : 'the Postern service is not installed';
    case 'ECONNREFUSED':
      return `the Postern service is not running (nothing answers on ${socketPath})`;
    case 'EACCES':
      return `you are not allowed to use the Postern service: only root and its group may open ${socketPath} (ask an administrator to add you to the group postern)`;
    default:
      return `the Postern service did not answer on ${socketPath}: ${error.message}`;
  }
}
