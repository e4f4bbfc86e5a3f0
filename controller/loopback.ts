/** Whether a host name or address is this machine's loopback (where plain HTTP stays on the host). */
import { isIP } from 'node:net';

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === 'localhost' || bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'));
}
