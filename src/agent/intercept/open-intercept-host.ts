/**
 * Intercept mode's host for this machine, or why there is none here, in words a user can act on: `run
 * --intercept` prints the reason and exits 1, the agent service reports it, and proxy mode carries on.
 */
import { nativeNet } from '../../common/native-net.js';
import type { InterceptHostOptions, OpenedInterceptHost } from './intercept-host.js';

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
