/**
 * The fix in words. A failing check's reason code is worded by the same module the agent uses for the device's
 * user (src/api/explain-failure.ts), so the administrator reads exactly what the user was told; the verdict on
 * the whole service (which policy grants it, or why none applies) is worded here.
 */
import { explainReason } from '../../../src/api/explain-failure.js';
import type { CheckExplanation, Identity, ServiceAccess } from '../api/types.js';

export interface FixContext {
  mfaEnrolled: boolean;
  /** the OS the device reported, for reasons that do not carry it */
  osName?: string;
}

export function fixForCheck(check: CheckExplanation, ctx: FixContext): string | null {
  if (check.isPassing) return null;
  if (check.failure) return explainReason(check.failure, ctx);
  return `Meet the ${check.typeId} check “${check.name}”`;
}

/** `words` follow "Granted" or "Refused" and a dash. */
export type Verdict = { granted: boolean; words: string };

const roleList = (roles: string[]) => roles.join(', ');

/** What `verdictOf` reads of the identity: its name, and whether it can sign in at all. */
export type VerdictIdentity = Pick<Identity, 'name'> &
  Partial<Pick<Identity, 'authenticators' | 'enrollment' | 'hasApiSession'>>;

const dateInWords = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/**
 * Why an identity with no way to sign in reaches nothing, in words, or null when it has one (a password, a
 * certificate from enrollment, or a session now). Said instead of its failing posture checks: blaming a check
 * for a device that never enrolled sends the administrator to the wrong place.
 */
export function cannotSignIn(identity: VerdictIdentity, now = new Date()): string | null {
  const { authenticators, enrollment } = identity;
  if (!authenticators || identity.hasApiSession || authenticators.updb || authenticators.cert) return null;
  const pending = [enrollment?.ott, enrollment?.updb].find((e) => e?.expiresAt);
  if (!pending?.expiresAt)
    return `${identity.name} has never signed in and has no way to: create an enrollment for it (or give it a password).`;
  return new Date(pending.expiresAt).getTime() <= now.getTime()
    ? `${identity.name} never enrolled (token expired on ${dateInWords(pending.expiresAt)}): create a new enrollment and send it.`
    : `${identity.name} has not enrolled yet (its token is valid until ${dateInWords(pending.expiresAt)}): nothing is reachable until the device enrolls.`;
}

/** Whether the identity may Dial the service, and the one sentence that says why or what to change. */
export function verdictOf(access: ServiceAccess, identity: VerdictIdentity, now = new Date()): Verdict {
  const dial = access.policies.filter((p) => p.type === 'Dial');
  const passing = dial.find((p) => p.isPassing);
  if (passing) return { granted: true, words: `by the policy “${passing.name}”.` };
  // Checks fail on a device that never reported anything: say what is really missing.
  const notSignedIn = cannotSignIn(identity, now);
  if (dial.length > 0 && notSignedIn) return { granted: false, words: notSignedIn };
  if (dial.length > 0) {
    return {
      granted: false,
      words:
        dial.length === 1
          ? `the policy “${dial[0]!.name}” fails a posture check. Fix its failing checks below.`
          : `each of the ${dial.length} Dial policies fails a posture check. One passing policy is enough: fix the failing checks of any one.`,
    };
  }
  const others = (access.otherPolicies ?? []).filter((p) => p.type === 'Dial');
  if (others.length > 0) {
    const roles = [...new Set(others.flatMap((p) => p.identityRoles))];
    return {
      granted: false,
      words: `no Dial policy selects ${identity.name}. The policies for this service select ${roleList(roles)}: give ${identity.name} one of those attributes, or add it to a policy.`,
    };
  }
  return {
    granted: false,
    words:
      'Refused: no Dial policy selects this service. Create a service policy that selects it and this identity.',
  };
}
