/**
 * Access across every signed-in device, for the administrators' overview: per service, how many devices a
 * Dial policy selects are granted now and how many posture refuses. A device is an identity with a live API
 * session; it counts as passing a service when any of its sessions may Dial it.
 *
 * This evaluates every signed-in identity, so its cost grows with them: it is for a person looking at an
 * overview, not for a hot path.
 */
import { isDisabledNow } from '../../identity-disabled.js';
import type { Store } from '../../store/repository.js';
import { AccessResolver } from './access-resolver.js';
import { SessionEvaluation } from './session-evaluation.js';

export interface ServiceTally {
  id: string;
  name: string;
  passing: number;
  failing: number;
}

export interface AccessSummary {
  identities: number;
  mfaEnrolled: number;
  devices: number;
  services: ServiceTally[];
}

export async function summariseAccess(store: Store, now: Date): Promise<AccessSummary> {
  const resolver = await AccessResolver.of(store);
  const tallies = new Map<string, ServiceTally>();
  let devices = 0;
  for (const identityId of await store.posture.data.identitiesWithApiSessions()) {
    const identity = await store.identities.get(identityId);
    const sessions = await store.apiSessions.listByIdentity(identityId);
    if (!identity || isDisabledNow(identity, now) || sessions.length === 0) continue;
    const grants = resolver.grantsOf(identity).filter((g) => g.policies.some((p) => p.type === 'Dial'));
    if (grants.length === 0) continue;
    devices++;
    const data = await store.posture.data.load(identityId);
    const evaluations = sessions.map((s) => new SessionEvaluation(resolver, data, s.id, now, identity));
    for (const { service } of grants) {
      const tally = tallies.get(service.id) ?? { id: service.id, name: service.name, passing: 0, failing: 0 };
      const granted = evaluations.some((e) => e.access(identity, service, 'Dial').granted);
      if (granted) tally.passing++;
      else tally.failing++;
      tallies.set(service.id, tally);
    }
  }
  return {
    identities: await store.identities.count(),
    mfaEnrolled: await store.mfa.countVerified(),
    devices,
    services: [...tallies.values()].sort((a, b) => b.failing - a.failing || a.name.localeCompare(b.name)),
  };
}
