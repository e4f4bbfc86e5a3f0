/**
 * Intercept mode's host for this machine, or why there is none here, in words a user can act on: `run
 * --intercept` prints the reason and exits 1, the agent service reports it, and proxy mode carries on.
 */
import { nativeNet } from '../../common/native-net.js';
import type { InterceptHost } from './intercept-host.js';

export interface InterceptHostOptions {
  /** where the record of system changes is kept, so a crashed run's changes are undone at the next start */
  stateDir: string;
  /** a line for the log (what was restored from an earlier run) */
  log: (message: string) => void;
}

export type OpenedInterceptHost = { host: InterceptHost } | { unavailable: string };

export async function openInterceptHost(options: InterceptHostOptions): Promise<OpenedInterceptHost> {
  if (process.platform !== 'linux')
    return {
      unavailable: `intercept mode runs on Linux for now (this is ${process.platform}); proxy mode works`,
    };
  const native = nativeNet();
  if ('unavailable' in native) return { unavailable: native.unavailable };
  const { openLinuxInterceptHost } = await import('./linux/linux-intercept-host.js');
  return openLinuxInterceptHost(options);
}
