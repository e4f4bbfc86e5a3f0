/**
 * The reference an agent shows beside a refused service (`ref 7K2Q-PX`), read from the trail: per service,
 * the identity's latest `access.refused` event unless an `access.granted` came after it; else (the identity's
 * access counts as granted, yet this API session is refused: another of its sessions fares better) the latest
 * `access.request-refused` since the last grant. The client API's service list carries it as Postern's
 * `refusalReference` (docs/OPENZITI-COMPATIBILITY.md).
 */
import type { Store } from '../store/repository.js';

/** Events read per list: far more than one identity's refused services leave behind between two grants. */
const MAX_READ = 500;

const quoted = (id: string) => `"${id.replace(/["\\]/g, '')}"`;

/** service id → the reference to quote, for each of `serviceIds` the trail explains a refusal of. */
export async function refusalReferences(
  store: Store,
  identityId: string,
  serviceIds: readonly string[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (serviceIds.length === 0) return found;
  const page = await store.auditEvents.list({
    limit: MAX_READ,
    offset: 0,
    filter:
      `identityId = ${quoted(identityId)} and serviceId in [${serviceIds.map(quoted).join(', ')}] and ` +
      `type in ["access.refused", "access.granted", "access.request-refused"] ` +
      `sort by createdAt desc limit ${MAX_READ}`,
  });
  const settled = new Set<string>();
  const fallback = new Map<string, string>();
  for (const event of page.items) {
    const serviceId = event.serviceId;
    if (!serviceId || settled.has(serviceId)) continue;
    if (event.type === 'access.request-refused') {
      if (!fallback.has(serviceId)) fallback.set(serviceId, event.reference);
      continue;
    }
    settled.add(serviceId);
    const reference = event.type === 'access.refused' ? event.reference : fallback.get(serviceId);
    if (reference) found.set(serviceId, reference);
  }
  for (const [serviceId, reference] of fallback) if (!settled.has(serviceId)) found.set(serviceId, reference);
  return found;
}
