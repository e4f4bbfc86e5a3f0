/**
 * What the desktop shows of the tunnel: each service's local addresses and the edge router carrying it beside
 * its access state, the list
 * redrawn as listeners open and close, and a notification when a connection is refused or cut (one per
 * service per quiet period, since a browser opens and loses many connections at once).
 */
import type { Agent } from '../../src/agent/agent.js';
import type { PromptPort } from '../../src/agent/prompts/prompt-port.js';
import type { TunnelEvent } from '../../src/agent/tunnel/tunnel-events.js';
import type { TunnelManager } from '../../src/agent/tunnel/tunnel-manager.js';
import type { ServiceRowView } from '../ipc/views.js';

/** A second notification about the same service within this long would only repeat the first. */
export const NOTICE_QUIET_MS = 30_000;

export function withLocalAddresses(
  agent: Agent | undefined,
  intercepted?: ReadonlyMap<string, string[]>,
): ServiceRowView[] {
  const addresses = agent?.tunnel?.localAddresses() ?? new Map<string, string[]>();
  const carriers = agent?.tunnel?.carriedBy() ?? new Map<string, { name: string }>();
  return (agent?.services() ?? []).map((service) => ({
    ...service,
    // While the Postern service intercepts, a service is reached at its own name: that is what to show.
    localAddresses: intercepted?.get(service.name) ?? addresses.get(service.name) ?? [],
    carriedBy: carriers.get(service.name)?.name ?? null,
  }));
}

/** Subscribes; answers the unsubscribe. */
export function wireTunnelNotices(
  tunnel: TunnelManager,
  prompt: PromptPort,
  redraw: () => void,
  now: () => number = Date.now,
): () => void {
  const lastNotice = new Map<string, number>();
  const quiet = (key: string): boolean => {
    const last = lastNotice.get(key);
    if (last !== undefined && now() - last < NOTICE_QUIET_MS) return true;
    lastNotice.set(key, now());
    return false;
  };
  const onEvent = (event: TunnelEvent) => {
    switch (event.type) {
      case 'listening':
      case 'closed':
      case 'carried':
        return redraw();
      case 'refused':
        if (!quiet(`refused:${event.service}`))
          prompt.notify({
            type: 'service-refused',
            service: event.service,
            reasons: event.reasons,
            ...(event.reference ? { reference: event.reference } : {}),
          });
        return;
      case 'revoked':
        if (!quiet(`revoked:${event.service}`))
          prompt.notify({ type: 'service-cut', service: event.service });
        return;
      default:
        return;
    }
  };
  tunnel.events.on('event', onEvent);
  return () => tunnel.events.off('event', onEvent);
}
