/**
 * What a catalogue change would do to Dial access, decided before anything is written: every identity a
 * changed policy selects (before or after the change) is evaluated twice through SessionEvaluation, once over
 * the stored catalogue and once over the changed one held in memory, on the posture data already stored, and
 * the pairs whose Dial access flips are the answer. SessionEvaluation is the decision `POST /sessions` makes,
 * so whatever it takes into account (check types, enforcement modes) the preview does too.
 *
 * MFA is per API session: each identity is evaluated for its most recently active API session, or, with
 * none, as a new sign-in (no TOTP passed), the same session `GET /identities/{id}/service-access` explains.
 */
import type { ApiSession, Identity, Service, ServicePolicy } from '../../model.js';
import type { Store } from '../../store/repository.js';
import type { Catalogue } from '../../catalogue/catalogue.js';
import type { PostureCheck, PostureSnapshot, SnapshotParts } from '../../posture-model.js';
import { partsReadBy } from '../../posture/checks/index.js';
import type { PostureFailureReason } from '../../../src/api/posture-reasons.js';
import { AccessResolver } from '../decisions/access-resolver.js';
import { latestSession } from '../decisions/access-explanation.js';
import { SessionEvaluation } from '../decisions/session-evaluation.js';

/** Each list of the answer holds at most this many items (sorted by identity, then service); counts are exact. */
export const PREVIEW_LIST_LIMIT = 1_000;

/** Identities read (posture data, API sessions) per store call: a big preview never holds the store long. */
const READ_CHUNK = 1_000;

/** A change of the catalogue, held in memory: the catalogues before and after, and the policies it touches. */
export interface CatalogueChange {
  before: Catalogue;
  after: Catalogue;
  /** the policies whose decision may differ (their ids, in `before`, `after` or both) */
  policyIds: ReadonlySet<string>;
  /** a posture check being created: its id is provisional (saving gives it another), answered as null */
  newCheckId?: string;
}

export interface PreviewReason {
  /** null for the check being created, which has no id until it is saved */
  postureCheckId: string | null;
  postureCheckName: string;
  typeId: string;
  actualValue: unknown;
  expectedValue: unknown;
  /** a sentence saying why the check fails */
  reason: string | null;
  /** the code and facts the device's user is told */
  failure: PostureFailureReason | null;
}

export interface PreviewItem {
  identityId: string;
  identityName: string;
  serviceId: string;
  serviceName: string;
  /**
   * newlyRefused: the checks refusing the pair after the change; newlyGranted: the checks that refused it
   * before. Empty when no Dial policy selects the pair on that side at all.
   */
  reasons: PreviewReason[];
}

export interface ImpactPreview {
  newlyRefused: PreviewItem[];
  newlyGranted: PreviewItem[];
  newlyRefusedCount: number;
  newlyGrantedCount: number;
  /** identities that would lose Dial access to at least one service */
  identitiesRefused: number;
  /** services that at least one identity would lose */
  servicesRefused: number;
}

const byName = <T extends { name: string; id: string }>(a: T, b: T) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** The failing checks of the Dial policies that select the pair, each once. */
function reasonsOf(
  evaluation: SessionEvaluation,
  identity: Identity,
  service: Service,
  newCheckId: string | undefined,
): PreviewReason[] {
  const reasons = new Map<string, PreviewReason>();
  for (const outcome of evaluation.access(identity, service, 'Dial').outcomes)
    for (const { check, result } of outcome.checks)
      if (!result.isPassing && !reasons.has(check.id))
        reasons.set(check.id, {
          postureCheckId: check.id === newCheckId ? null : check.id,
          postureCheckName: check.name,
          typeId: check.typeId,
          actualValue: result.actualValue,
          expectedValue: result.expectedValue,
          reason: result.reason ?? null,
          failure: result.failure ?? null,
        });
  return [...reasons.values()];
}

/** The API session each identity is evaluated for: its most recently active one (absent: none). */
async function sessionsOf(store: Store, identities: readonly Identity[]): Promise<Map<string, string>> {
  const chosen = new Map<string, string>();
  for (let i = 0; i < identities.length; i += READ_CHUNK) {
    const ids = identities.slice(i, i + READ_CHUNK).map((e) => e.id);
    const byIdentity = new Map<string, ApiSession[]>();
    for (const s of await store.apiSessions.listByIdentities(ids)) {
      const list = byIdentity.get(s.identityId);
      if (list) list.push(s);
      else byIdentity.set(s.identityId, [s]);
    }
    for (const [identityId, sessions] of byIdentity) chosen.set(identityId, latestSession(sessions)!.id);
  }
  return chosen;
}

/** The identities' posture data: only the parts the checks read (the largest share of a big preview's time). */
async function postureDataOf(
  store: Store,
  identities: readonly Identity[],
  parts: SnapshotParts,
): Promise<Map<string, PostureSnapshot>> {
  const all = new Map<string, PostureSnapshot>();
  for (let i = 0; i < identities.length; i += READ_CHUNK) {
    const ids = identities.slice(i, i + READ_CHUNK).map((e) => e.id);
    const chunk = await store.posture.data.loadMany(ids, parts);
    for (const [id, data] of chunk) all.set(id, data);
  }
  return all;
}

/** Dial access of every identity the change can touch, before and after, compared pair by pair. */
export async function previewImpact(
  store: Store,
  change: CatalogueChange,
  now: Date,
): Promise<ImpactPreview> {
  const before = new AccessResolver(change.before);
  const after = new AccessResolver(change.after);
  // Only Dial policies decide Dial access: a Bind policy's change shows nowhere here.
  const sides = [
    { resolver: before, policies: dialPolicies(change.before, change.policyIds) },
    { resolver: after, policies: dialPolicies(change.after, change.policyIds) },
  ];
  const selected = await before.identitiesOfAny(
    sides.flatMap((s) => s.policies),
    store.identities,
  );
  // The services to compare depend only on which changed policies select the identity: listed once per set.
  const candidates = new Map<string, Service[]>();
  const pairs: { identity: Identity; services: Service[] }[] = [];
  for (const identity of selected) {
    const selecting = sides.map(({ resolver, policies }) => {
      const mine = resolver.policiesOf(identity);
      return policies.filter((p) => mine.includes(p));
    });
    const key = selecting.map((side) => side.map((p) => p.id).join(',')).join(' ');
    let services = candidates.get(key);
    if (!services) {
      const found = new Map<string, Service>();
      selecting.forEach((side, i) => {
        for (const policy of side) for (const s of sides[i]!.resolver.servicesOf(policy)) found.set(s.id, s);
      });
      candidates.set(key, (services = [...found.values()].sort(byName)));
    }
    if (services.length > 0) pairs.push({ identity, services });
  }
  const identities = pairs.map((p) => p.identity);
  const parts = partsReadBy(checksDeciding([...candidates.values()].flat(), sides));
  const [data, sessions] = await Promise.all([
    postureDataOf(store, identities, parts),
    sessionsOf(store, identities),
  ]);
  const answer: ImpactPreview = {
    newlyRefused: [],
    newlyGranted: [],
    newlyRefusedCount: 0,
    newlyGrantedCount: 0,
    identitiesRefused: 0,
    servicesRefused: 0,
  };
  const servicesRefused = new Set<string>();
  for (const { identity, services } of pairs) {
    const apiSessionId = sessions.get(identity.id) ?? '';
    const snapshot = data.get(identity.id) ?? null;
    // No session: an id no session has, so per-session facts (TOTP passes) read as absent.
    const was = new SessionEvaluation(before, snapshot, apiSessionId, now, identity);
    // The checks the change leaves alone are the same objects in both catalogues: evaluated once for both.
    const will = new SessionEvaluation(after, snapshot, apiSessionId, now, identity, was);
    const grantedBefore = was.grantedAmong(identity, services, 'Dial');
    const grantedAfter = will.grantedAmong(identity, services, 'Dial');
    let refusedHere = false;
    for (const service of services) {
      const granted = grantedBefore.has(service.id);
      if (granted === grantedAfter.has(service.id)) continue;
      const list = granted ? answer.newlyRefused : answer.newlyGranted;
      if (granted) {
        answer.newlyRefusedCount++;
        refusedHere = true;
        servicesRefused.add(service.id);
      } else answer.newlyGrantedCount++;
      if (list.length < PREVIEW_LIST_LIMIT)
        list.push({
          identityId: identity.id,
          identityName: identity.name,
          serviceId: service.id,
          serviceName: service.name,
          reasons: reasonsOf(granted ? will : was, identity, service, change.newCheckId),
        });
    }
    if (refusedHere) answer.identitiesRefused++;
  }
  answer.servicesRefused = servicesRefused.size;
  return answer;
}

/**
 * Every check a Dial policy selecting one of the services requires, on either side: what deciding those
 * services reads (an identity's other policies may grant them too).
 */
function checksDeciding(
  services: readonly Service[],
  sides: readonly { resolver: AccessResolver }[],
): Set<PostureCheck> {
  const checks = new Set<PostureCheck>();
  for (const service of new Set(services))
    for (const { resolver } of sides)
      for (const policy of resolver.policiesSelecting(service))
        if (policy.type === 'Dial') for (const check of resolver.checksOf(policy)) checks.add(check);
  return checks;
}

function dialPolicies(catalogue: Catalogue, ids: ReadonlySet<string>): ServicePolicy[] {
  return [...ids]
    .map((id) => catalogue.policies.get(id))
    .filter((p): p is ServicePolicy => p !== undefined && p.type === 'Dial');
}
