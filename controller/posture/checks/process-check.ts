/**
 * PROCESS check (OpenZiti's single-process type): one binary must be running, optionally with an allowed hash
 * and signer. The matching rules are shared with PROCESS_MULTI in `process-match.ts`, including Postern's
 * OS rule: on a device that reported another OS family the rule does not apply, so the check fails.
 */
import type { FieldProblem, ProcessCheck, ProcessRule } from '../../posture-model.js';
import type { CheckModule } from './check-module.js';
import {
  evaluateProcessRule,
  noRuleFailure,
  noRuleFor,
  parseProcessRule,
  processFailure,
  ruleApplies,
} from './process-match.js';
import { resolveField } from './normalise.js';

/** OpenZiti's `process` object; `signerFingerprint` is a single string there, left out when none is set. */
function processWire(rule: ProcessRule): Record<string, unknown> {
  const wire: Record<string, unknown> = { osType: rule.osType, path: rule.path, hashes: [...rule.hashes] };
  if (rule.signerFingerprints[0] !== undefined) wire.signerFingerprint = rule.signerFingerprints[0];
  return wire;
}

export const processCheck: CheckModule<ProcessCheck> = {
  typeId: 'PROCESS',
  reads: { kinds: ['os'], processes: true },

  parse(body, mode, existing) {
    const problems: FieldProblem[] = [];
    // A patch that sends `process` replaces the whole rule, as in OpenZiti.
    const field = resolveField(body, ['process'], mode, existing !== undefined);
    let process = existing?.process;
    if (field.kind === 'missing') {
      problems.push({ field: 'process', reason: 'is required' });
    } else if (field.kind === 'given') {
      process = parseProcessRule(field.value, field.key, 'signerFingerprint', problems);
    }
    if (problems.length > 0 || !process) return { ok: false, problems };
    return { ok: true, spec: { typeId: 'PROCESS', process } };
  },

  toWire(check) {
    return { process: processWire(check.process) };
  },

  evaluate(check, data) {
    const outcome = evaluateProcessRule(check.process, data);
    const result = {
      isPassing: outcome.passed,
      actualValue: outcome.actual,
      expectedValue: processWire(check.process),
    };
    if (!ruleApplies(check.process, data)) {
      return {
        ...result,
        isPassing: false,
        reason: noRuleFor(data),
        failure: noRuleFailure([check.process], data),
      };
    }
    if (outcome.passed) return result;
    return { ...result, reason: outcome.reason, failure: processFailure(check.process, outcome) };
  },

  timeoutSeconds: () => -1,
  timeoutRemaining: () => -1,
  queryFields(check) {
    return { process: { osType: check.process.osType, path: check.process.path } };
  },
  nextChangeAt: () => null,
};
