/** What the tunnel tells its user (the CLI prints these; the desktop shows them). */
import { referenceLabel } from '../../api/refusal-reference.js';

export type TunnelEvent =
  | { type: 'listening'; service: string; address: string }
  /** intercept mode: programs reach the service at this real address (`wiki.corp:443`) */
  | { type: 'intercepting'; service: string; address: string }
  | { type: 'closed'; service: string; address: string }
  /** `reference`: the controller's for this refusal (`7K2Q-PX`), to quote to an administrator, when it gave one */
  | { type: 'refused'; service: string; reasons: string[]; reference?: string }
  | { type: 'revoked'; service: string }
  /**
   * the edge router carrying the service's new connections changed (or carried its first one): its name and
   * URL, and the one before it, if any
   */
  | { type: 'carried'; service: string; router: string; url: string; previous?: string }
  /**
   * the listener moved or stands on one address only, and why (a port squatted on ::1, no IPv6 loopback);
   * a move names the port asked for and the port used
   */
  | { type: 'warning'; service: string; message: string; askedPort?: number; port?: number }
  | { type: 'error'; service?: string; message: string };

/** One line for a terminal: `tunnel crm: listening on 127.0.0.1:8443`. */
export function describeTunnelEvent(event: TunnelEvent): string {
  switch (event.type) {
    case 'listening':
      return event.service === 'socks5'
        ? `socks5: listening on ${event.address}`
        : `tunnel ${event.service}: listening on ${event.address}`;
    case 'intercepting':
      return `intercept ${event.service}: ${event.address}`;
    case 'closed':
      return `tunnel ${event.service}: closed ${event.address}`;
    case 'refused':
      return `tunnel ${event.service}: refused: ${event.reasons.join('; ')}${event.reference ? ` (${referenceLabel(event.reference)})` : ''}`;
    case 'revoked':
      return `tunnel ${event.service}: revoked (access ended; the connection was cut)`;
    case 'carried':
      return `tunnel ${event.service}: carried by ${event.router}${event.previous ? ` (was ${event.previous})` : ''}`;
    case 'warning':
      return event.service === 'socks5'
        ? `socks5: warning: ${event.message}`
        : `tunnel ${event.service}: warning: ${event.message}`;
    case 'error':
      return `tunnel${event.service ? ` ${event.service}` : ''}: ${event.message}`;
  }
}

/** One JSON object for `--json`: `{"event":"listening","service":"crm","address":"127.0.0.1:8443"}`. */
export function tunnelEventJson(event: TunnelEvent): string {
  const { type, ...rest } = event;
  return JSON.stringify({ event: type, ...rest });
}
