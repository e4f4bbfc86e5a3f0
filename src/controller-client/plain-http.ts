/**
 * Plain `http://` carries the password, TOTP codes and session tokens in clear. On loopback that stays on
 * the machine (the bundled controller, tests); to any other host the agent refuses it unless the user says
 * `--insecure`, so a typo or a downgraded link never sends credentials across the network unencrypted.
 */
export class PlainHttpRefused extends Error {
  constructor(readonly url: string) {
    super(
      `refusing plain http:// to ${new URL(url).host}: the password, codes and session would cross the network ` +
        'unencrypted; use https:// (or --insecure to accept that risk)',
    );
    this.name = 'PlainHttpRefused';
  }
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export function assertTransportAllowed(baseUrl: string, allowPlainHttp = false): void {
  const url = new URL(baseUrl);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !allowPlainHttp)
    throw new PlainHttpRefused(baseUrl);
}
