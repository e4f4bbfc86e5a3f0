/**
 * PROCESS_MULTI check: several binaries, combined with `AllOf` (every one must pass) or `AnyOf` (one is enough).
 * Postern's original interface calls AnyOf `OneOf`; both are accepted and stored as `AnyOf`. Unlike OpenZiti,
 * an empty process list fails under both semantics (it cannot be created anyway), so nothing passes by omission.
 *
 * Also unlike OpenZiti, only the rules for the device's OS family count once the device has reported its OS
 * (`ruleApplies`): AllOf needs every applicable rule, AnyOf one of them, and a device no rule applies to fails.
 */
import type { PostureFailureReason } from '../../../src/api/posture-reasons.js';
import type { FieldProblem, ProcessMultiCheck, ProcessRule } from '../../posture-model.js';
import type { CheckModule } from './check-module.js';
import {
  evaluateProcessRule,
  noRuleFailure,
  noRuleFor,
  parseProcessRule,
  processFailure,
  ruleApplies,
  type ProcessActual,
  type ProcessOutcome,
} from './process-match.js';
import { parseList, resolveField } from './normalise.js';

const SEMANTICS: Record<string, ProcessMultiCheck['semantic']> = {
  AllOf: 'AllOf',
  AnyOf: 'AnyOf',
  OneOf: 'AnyOf',
};

function ruleWire(rule: ProcessRule): Record<string, unknown> {
  return {
    osType: rule.osType,
    path: rule.path,
    hashes: [...rule.hashes],
    signerFingerprints: [...rule.signerFingerprints],
  };
}

/**
 * One code for the check (the first failing binary's, so a program can switch on it) and the code of every
 * binary in the way, which is what the user acts on: all of them under AllOf, any one under AnyOf.
 */
function multiFailure(
  semantic: ProcessMultiCheck['semantic'],
  rules: readonly ProcessRule[],
  outcomes: readonly ProcessOutcome[],
): PostureFailureReason {
  const processes = rules
    .map((rule, i) => ({ rule, outcome: outcomes[i]! }))
    .filter(({ outcome }) => !outcome.passed)
    .map(({ rule, outcome }) => processFailure(rule, outcome))
    .map(({ code, path }) => ({ code, path: path! }));
  return { code: processes[0]?.code ?? 'PROCESS_NOT_RUNNING', semantic, processes };
}

export const processMultiCheck: CheckModule<ProcessMultiCheck> = {
  typeId: 'PROCESS_MULTI',
  reads: { kinds: ['os'], processes: true },

  parse(body, mode, existing) {
    const problems: FieldProblem[] = [];
    const hasExisting = existing !== undefined;

    const semanticField = resolveField(body, ['semantic'], mode, hasExisting);
    let semantic = existing?.semantic;
    if (semanticField.kind === 'missing') {
      problems.push({ field: 'semantic', reason: 'is required (AllOf, AnyOf or OneOf)' });
    } else if (semanticField.kind === 'given') {
      const v = semanticField.value;
      semantic = typeof v === 'string' && Object.hasOwn(SEMANTICS, v) ? SEMANTICS[v] : undefined;
      if (!semantic) problems.push({ field: 'semantic', reason: 'must be AllOf, AnyOf or OneOf', value: v });
    }

    const processesField = resolveField(body, ['processes'], mode, hasExisting);
    let processes = existing?.processes;
    if (processesField.kind === 'missing') {
      problems.push({ field: 'processes', reason: 'is required' });
    } else if (processesField.kind === 'given') {
      processes = parseList(processesField.value, 'processes', problems, true, (v, f) =>
        parseProcessRule(v, f, 'signerFingerprints', problems),
      );
    }

    if (problems.length > 0 || !semantic || !processes) return { ok: false, problems };
    return { ok: true, spec: { typeId: 'PROCESS_MULTI', semantic, processes } };
  },

  toWire(check) {
    return { semantic: check.semantic, processes: check.processes.map(ruleWire) };
  },

  evaluate(check, data) {
    const applicable = check.processes.filter((rule) => ruleApplies(rule, data));
    const outcomes = applicable.map((rule) => evaluateProcessRule(rule, data));
    const failing = outcomes.filter((o) => !o.passed);
    const isPassing =
      outcomes.length > 0 &&
      (check.semantic === 'AllOf' ? failing.length === 0 : failing.length < outcomes.length);
    const actualValue: ProcessActual[] = failing.map((o) => o.actual);
    const result = {
      isPassing,
      actualValue,
      expectedValue: check.processes.map(ruleWire),
      extra: { semantic: check.semantic },
    };
    if (isPassing) return result;
    const reasons = failing.map((o) => o.reason).filter((r): r is string => r !== undefined);
    let reason: string;
    if (check.processes.length === 0) reason = 'the check lists no processes';
    else if (outcomes.length === 0) reason = noRuleFor(data);
    else if (check.semantic === 'AllOf') reason = reasons.join('; ');
    else reason = `none of the required processes passes: ${reasons.join('; ')}`;
    if (outcomes.length === 0) return { ...result, reason, failure: noRuleFailure(check.processes, data) };
    return { ...result, reason, failure: multiFailure(check.semantic, applicable, outcomes) };
  },

  timeoutSeconds: () => -1,
  timeoutRemaining: () => -1,
  queryFields(check) {
    return { processes: check.processes.map((p) => ({ osType: p.osType, path: p.path })) };
  },
  nextChangeAt: () => null,
};
