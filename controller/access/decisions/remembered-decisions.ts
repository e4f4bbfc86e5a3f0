/**
 * Whether an API session may use a service, remembered between its requests. The decision depends on nothing
 * but the posture snapshot (a new object after every write to the identity's data), the catalogue (a new one
 * after every change to a policy, check or service), the identity (a new object after every change on a
 * caching store) and the time, and it holds until the earliest moment one of its checks changes by itself (an
 * MFA timeout): so a remembered decision is reused only for the very same objects and before that moment.
 * Where a store hands out new objects on every read (PostgreSQL), nothing is ever reused.
 */
import type { Identity, PolicyType, Service } from '../../model.js';
import type { PostureSnapshot } from '../../posture-model.js';
import type { AccessResolver } from './access-resolver.js';
import { SessionEvaluation } from './session-evaluation.js';

interface Remembered {
  basis: object;
  identity: Identity;
  service: Service;
  /** the decision holds from `from` until just before `until` (ms) */
  from: number;
  until: number;
  granted: boolean;
}

const decisions = new WeakMap<PostureSnapshot, Map<string, Remembered>>();

/** Whether the API session may `type` the service at `now`, evaluated again only when something changed. */
export function isGranted(
  resolver: AccessResolver,
  data: PostureSnapshot,
  identity: Identity,
  apiSessionId: string,
  service: Service,
  type: PolicyType,
  now: Date,
): boolean {
  const key = `${apiSessionId}\u0000${service.id}\u0000${type}`;
  const at = now.getTime();
  let known = decisions.get(data);
  const hit = known?.get(key);
  if (
    hit &&
    hit.basis === resolver.basis &&
    hit.identity === identity &&
    hit.service === service &&
    at >= hit.from &&
    at < hit.until
  )
    return hit.granted;
  const evaluation = new SessionEvaluation(resolver, data, apiSessionId, now, identity);
  const granted = evaluation.access(identity, service, type).granted;
  const until = evaluation.nextChangeAt()?.getTime() ?? Infinity;
  if (!known) decisions.set(data, (known = new Map()));
  known.set(key, { basis: resolver.basis, identity, service, from: at, until, granted });
  return granted;
}
