/**
 * Storing validated posture responses, stamped with the controller's clock (a device's own clock is never
 * trusted), and working out which services a wake or unlock has just put into their MFA grace period.
 */
import type { ControllerContext } from '../../platform/context.js';
import type { Identity } from '../../model.js';
import type { AccessResolver } from '../decisions/access-resolver.js';
import {
  MFA_PROMPT_GRACE_SECONDS,
  NO_TIMEOUT,
  type PostureSnapshot,
  type MfaCheck,
} from '../../posture-model.js';
import type { ResponseItem } from '../../posture/response-items.js';
import { withFields } from '../../../src/common/with-fields.js';

/** `postureResponseService`: a service whose MFA timer the response changed. */
export interface GraceService {
  id: string;
  name: string;
  postureQueryType: 'MFA';
  timeout: number;
  timeoutRemaining: number;
}

/** Writes every item; the caller wraps this in one transaction so a request lands whole or not at all. */
export async function applyResponses(
  ctx: ControllerContext,
  identityId: string,
  apiSessionId: string,
  items: readonly ResponseItem[],
  now: Date,
): Promise<void> {
  const data = ctx.store.posture.data;
  await data.updateApiSession(apiSessionId, identityId, {});
  for (const item of items) {
    const slot = { postureCheckId: item.id, lastUpdatedAt: now };
    switch (item.typeId) {
      case 'OS':
        await data.setOs(
          identityId,
          withFields(slot, { type: item.type, version: item.version, build: item.build }),
        );
        break;
      case 'MAC':
        await data.setMac(identityId, withFields(slot, { addresses: item.macAddresses }));
        break;
      case 'DOMAIN':
        await data.setDomain(identityId, withFields(slot, { domain: item.domain }));
        break;
      case 'PROCESS':
        await data.setProcess(
          identityId,
          withFields(slot, {
            path: item.path,
            isRunning: item.isRunning,
            hash: item.hash,
            signerFingerprints: item.signerFingerprints,
          }),
        );
        break;
      case 'ENDPOINT_STATE':
        // A false flag does not clear an earlier wake or unlock (OpenZiti's rule).
        if (item.woken) await data.updateApiSession(apiSessionId, identityId, { wokenAt: now });
        if (item.unlocked) await data.updateApiSession(apiSessionId, identityId, { unlockedAt: now });
        break;
      default:
        // A described type's fact (DISK_ENCRYPTION, FIREWALL, ...): stored generically under its type id.
        await data.setReportedFact(identityId, item.typeId, withFields(slot, { value: item.fact }));
        break;
    }
  }
}

/**
 * The caller's services whose MFA check now runs a grace period because of this wake or unlock:
 * checks that prompt on the event, for an API session that has passed TOTP, where the grace
 * ends before the timeout would. Unlike OpenZiti, which lists every service of such a check, only services the
 * identity reaches through a policy requiring the check are listed: the others are none of its business.
 * `data` is the identity's posture data read before or after the report was stored: a report never writes
 * the TOTP pass, the only part read here.
 */
export function graceServices(
  resolver: AccessResolver,
  identity: Identity,
  data: PostureSnapshot,
  apiSessionId: string,
  items: readonly ResponseItem[],
  now: Date,
): GraceService[] {
  const woken = items.some((i) => i.typeId === 'ENDPOINT_STATE' && i.woken);
  const unlocked = items.some((i) => i.typeId === 'ENDPOINT_STATE' && i.unlocked);
  const passedAt = data.apiSessions[apiSessionId]?.mfaPassedAt;
  if ((!woken && !unlocked) || !passedAt) return [];
  const sinceMfa = Math.trunc((now.getTime() - passedAt.getTime()) / 1000);
  const prompts = (check: MfaCheck) =>
    ((woken && check.promptOnWake) || (unlocked && check.promptOnUnlock)) &&
    (check.timeoutSeconds === NO_TIMEOUT || check.timeoutSeconds - sinceMfa > MFA_PROMPT_GRACE_SECONDS);

  const services = new Map<string, GraceService>();
  for (const policy of resolver.policiesOf(identity)) {
    const checks = resolver.checksOf(policy).filter((c): c is MfaCheck => c.typeId === 'MFA' && prompts(c));
    if (checks.length === 0) continue;
    // The lowest real timeout among them; -1 only when none has one.
    const timeouts = checks.map((c) => c.timeoutSeconds).filter((t) => t !== NO_TIMEOUT);
    const timeout = timeouts.length > 0 ? Math.min(...timeouts) : NO_TIMEOUT;
    for (const service of resolver.servicesOf(policy)) {
      const known = services.get(service.id);
      const lowest =
        known && known.timeout !== NO_TIMEOUT && (timeout === NO_TIMEOUT || known.timeout < timeout)
          ? known.timeout
          : timeout;
      services.set(service.id, {
        id: service.id,
        name: service.name,
        postureQueryType: 'MFA',
        timeout: lowest,
        timeoutRemaining: MFA_PROMPT_GRACE_SECONDS,
      });
    }
  }
  return [...services.values()];
}
