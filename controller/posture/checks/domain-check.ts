/**
 * DOMAIN check: the Windows domain the device reported must equal one of the listed domains, ignoring case
 * (no suffix matching, so `corp.example` does not allow `eu.corp.example`).
 *
 * The list is read from `domains` (OpenZiti) or `macAddresses` (Postern's original key for the list)
 * and always answered as `domains`. Problems are named after the key the client actually sent.
 */
import type { PostureFailureReason } from '../../../src/api/posture-reasons.js';
import type { DomainCheck, FieldProblem } from '../../posture-model.js';
import type { CheckModule } from './check-module.js';
import { parseList, parseName, resolveField } from './normalise.js';
import { CHECK_TEXT_LIMITS } from '../../../src/api/resources/posture-checks.js';

/** First spelling wins among entries equal ignoring case: they would match exactly the same devices. */
function uniqueIgnoringCase(domains: string[]): string[] {
  const seen = new Set<string>();
  return domains.filter((d) => !seen.has(d.toLowerCase()) && seen.add(d.toLowerCase()));
}

export const domainCheck: CheckModule<DomainCheck> = {
  typeId: 'DOMAIN',
  reads: { kinds: ['domain'] },

  parse(body, mode, existing) {
    const problems: FieldProblem[] = [];
    const field = resolveField(body, ['domains', 'macAddresses'], mode, existing !== undefined);
    let domains = existing?.domains;
    if (field.kind === 'missing') {
      problems.push({ field: 'domains', reason: 'is required' });
    } else if (field.kind === 'given') {
      const list = parseList(field.value, field.key, problems, true, (v, f) =>
        parseName(v, f, problems, CHECK_TEXT_LIMITS.domain),
      );
      domains = list && uniqueIgnoringCase(list);
    }
    if (problems.length > 0 || !domains) return { ok: false, problems };
    return { ok: true, spec: { typeId: 'DOMAIN', domains } };
  },

  toWire(check) {
    return { domains: [...check.domains] };
  },

  evaluate(check, data) {
    const reported = data?.domain?.domain ?? '';
    const actualValue = reported;
    const expectedValue = [...check.domains];
    const wanted = reported.trim().toLowerCase();
    if (wanted !== '' && check.domains.some((d) => d.toLowerCase() === wanted)) {
      return { isPassing: true, actualValue, expectedValue };
    }
    const reason =
      wanted === ''
        ? 'the device has not reported membership of any Windows domain'
        : `the device is in domain "${reported}", which is not allowed (allowed: ${check.domains.join(', ')})`;
    // A device outside any domain reports '' (Linux and macOS always do): that is a mismatch, not missing data.
    // The allowed domains are never part of what the user is told (as the MAC list is not): a domain's name
    // tells whoever holds a stolen session which directory to aim at. The administrator's views keep them.
    const failure: PostureFailureReason = {
      code: data?.domain ? 'DOMAIN_MISMATCH' : 'NO_DATA_YET',
      ...(data?.domain ? { domain: reported } : { missing: 'DOMAIN' }),
    };
    return { isPassing: false, actualValue, expectedValue, reason, failure };
  },

  timeoutSeconds: () => -1,
  timeoutRemaining: () => -1,
  queryFields: () => ({}),
  nextChangeAt: () => null,
};
