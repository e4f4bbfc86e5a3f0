/**
 * A router's link to the controller going up or down, on the trail of the instance that holds the link. Only
 * real changes are recorded: a link opening when the router had none here (`router.link-up`), and the current
 * link closing (`router.link-down`). A reconnecting router replacing its stale link records nothing for the
 * replaced one, heartbeats (pings) record nothing, and a controller stopping records nothing for the links it
 * closes itself: the router's next `router.link-up`, wherever it relinks, follows.
 */
import { recordAudit, type AuditSink } from './audit-trail.js';

export function recordRouterLink(
  sink: AuditSink,
  change: 'up' | 'down',
  router: { id: string; name: string },
  at: Date,
  details: Record<string, unknown> = {},
): Promise<unknown> {
  return recordAudit(
    sink,
    {
      type: change === 'up' ? 'router.link-up' : 'router.link-down',
      details: { routerId: router.id, routerName: router.name, ...details },
    },
    at,
  );
}
