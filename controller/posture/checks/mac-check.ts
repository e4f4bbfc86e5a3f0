/**
 * MAC check: passes when any address the device reported is in the list.
 *
 * Configured values are validated strictly (`AA-BB-CC-DD-EE-FF`, `aa:bb:cc:dd:ee:ff` or 12 bare hex digits) so a
 * typo is refused instead of stored as a value that can never match; they are stored like OpenZiti stores them,
 * lower-case hex without separators, which is also the form reported addresses are compared in.
 */
import type { PostureFailureReason } from '../../../src/api/posture-reasons.js';
import type { FieldProblem, MacCheck } from '../../posture-model.js';
import type { CheckModule } from './check-module.js';
import { normaliseHex, parseList, resolveField, unique } from './normalise.js';
import { CHECK_TEXT_LIMITS } from '../../../src/api/resources/posture-checks.js';

const MAC_FORMS = /^(?:[0-9a-f]{2}(?:-[0-9a-f]{2}){5}|[0-9a-f]{2}(?::[0-9a-f]{2}){5}|[0-9a-f]{12})$/i;

function parseMac(value: unknown, field: string, problems: FieldProblem[]): string | undefined {
  if (typeof value === 'string' && value.length <= CHECK_TEXT_LIMITS.mac && MAC_FORMS.test(value.trim()))
    return normaliseHex(value);
  problems.push({ field, reason: 'must be a MAC address such as AA-BB-CC-DD-EE-FF', value });
  return undefined;
}

/** aabbccddeeff -> aa:bb:cc:dd:ee:ff, for reasons a person reads */
function display(mac: string): string {
  return mac.length === 12 ? (mac.match(/../g) ?? []).join(':') : mac;
}

export const macCheck: CheckModule<MacCheck> = {
  typeId: 'MAC',
  reads: { kinds: ['mac'] },

  parse(body, mode, existing) {
    const problems: FieldProblem[] = [];
    const field = resolveField(body, ['macAddresses'], mode, existing !== undefined);
    let macAddresses = existing?.macAddresses;
    if (field.kind === 'missing') {
      problems.push({ field: 'macAddresses', reason: 'is required' });
    } else if (field.kind === 'given') {
      const list = parseList(field.value, field.key, problems, true, (v, f) => parseMac(v, f, problems));
      macAddresses = list && unique(list);
    }
    if (problems.length > 0 || !macAddresses) return { ok: false, problems };
    return { ok: true, spec: { typeId: 'MAC', macAddresses } };
  },

  toWire(check) {
    return { macAddresses: [...check.macAddresses] };
  },

  evaluate(check, data) {
    // Reported addresses are normalised at ingest; doing it again is cheap and keeps this module self-sufficient.
    const reported = unique((data?.mac?.addresses ?? []).map(normaliseHex).filter((a) => a !== ''));
    const allowed = new Set(check.macAddresses);
    const actualValue = reported;
    const expectedValue = [...check.macAddresses];
    if (reported.some((a) => allowed.has(a))) return { isPassing: true, actualValue, expectedValue };
    const reason =
      reported.length === 0
        ? 'the device has not reported any MAC address'
        : `none of the device's MAC addresses (${reported.map(display).join(', ')}) is in the allowed list`;
    // The allowed list is never part of what the user is told: it is what a forger would need.
    const failure: PostureFailureReason =
      reported.length === 0 ? { code: 'NO_DATA_YET', missing: 'MAC' } : { code: 'MAC_NOT_ALLOWED' };
    return { isPassing: false, actualValue, expectedValue, reason, failure };
  },

  timeoutSeconds: () => -1,
  timeoutRemaining: () => -1,
  queryFields: () => ({}),
  nextChangeAt: () => null,
};
