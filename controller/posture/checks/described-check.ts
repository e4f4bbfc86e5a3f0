/**
 * The check module of a type defined by its descriptor (src/api/posture-types): the option fields are validated
 * against the descriptor's schemas (a problem names the field), stored under `options` and shown back flat;
 * the type's own module gives only its evaluation (and any check a schema cannot say, such as a semver
 * range's syntax). Such a type has no timeout and no extra query fields.
 */
import { Value } from '@sinclair/typebox/value';
import type { PostureTypeDescriptor } from '../../../src/api/posture-types/index.js';
import { schemaInWords } from '../../../src/api/posture-types/schema-words.js';
import type { PostureFailureReason } from '../../../src/api/posture-reasons.js';
import type {
  CheckResult,
  DescribedCheck,
  DescribedCheckType,
  EvaluationContext,
  FieldProblem,
  PostureSnapshot,
  ReportedFactData,
  SnapshotParts,
} from '../../posture-model.js';
import type { CheckModule } from './check-module.js';
import { resolveField } from './normalise.js';

export interface DescribedEvaluation<K extends DescribedCheckType> {
  /**
   * Checks and normalises what the schemas cannot (runs only when every field passed its schema); pushes a
   * problem naming the field, or changes `options` to the form stored.
   */
  refine?(options: Record<string, unknown>, problems: FieldProblem[]): void;
  evaluate(check: DescribedCheck<K>, data: PostureSnapshot | null, ctx: EvaluationContext): CheckResult;
  /** what `evaluate` reads, when not the type's own reported fact */
  reads?: SnapshotParts;
}

export function describedCheck<K extends DescribedCheckType>(
  descriptor: PostureTypeDescriptor<K>,
  evaluation: DescribedEvaluation<K>,
): CheckModule<DescribedCheck<K>> {
  return {
    typeId: descriptor.id as DescribedCheck<K>['typeId'],

    parse(body, mode, existing) {
      const problems: FieldProblem[] = [];
      const options: Record<string, unknown> = {};
      for (const field of descriptor.optionFields) {
        const found = resolveField(body, [field.name], mode, existing !== undefined);
        if (found.kind === 'keep') {
          options[field.name] = existing!.options[field.name];
          continue;
        }
        const value = found.kind === 'given' ? found.value : undefined;
        // Left out of a create or PUT, or null (as a JSON null in an OpenZiti patch): the default.
        if (value === undefined || value === null) {
          if (field.required) problems.push({ field: field.name, reason: 'is required', value });
          else options[field.name] = field.schema.default ?? null;
          continue;
        }
        if (!Value.Check(field.schema, value)) {
          problems.push({ field: field.name, reason: `must be ${schemaInWords(field.schema)}`, value });
          continue;
        }
        options[field.name] = value;
      }
      if (problems.length === 0) evaluation.refine?.(options, problems);
      if (problems.length > 0) return { ok: false, problems };
      const spec = { typeId: descriptor.id, options } as unknown as Omit<DescribedCheck<K>, never>;
      return { ok: true, spec } as never;
    },

    toWire: (check) => ({ ...check.options }),
    evaluate: evaluation.evaluate,
    reads: evaluation.reads ?? { kinds: [descriptor.id] },
    timeoutSeconds: () => -1,
    timeoutRemaining: () => -1,
    queryFields: () => ({}),
    nextChangeAt: () => null,
  };
}

// ---- what the evaluation modules share -------------------------------------------------------------------

/** The type's stored fact, or undefined when the device has not reported it yet. */
export function factOf(data: PostureSnapshot | null, typeId: string): ReportedFactData | undefined {
  const facts = data?.facts;
  return facts && Object.hasOwn(facts, typeId) ? (facts[typeId] as ReportedFactData) : undefined;
}

/** A stored flag as true, false or null (unknown); anything else is unknown, never passing. */
export function flagOf(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
}

/** The agent's own words for why it could not read a fact, when it gave them. */
export function unknownReasonOf(fact: ReportedFactData): string | undefined {
  const words = fact.value.unknownReason;
  return typeof words === 'string' && words.trim() !== '' ? words.trim() : undefined;
}

export const failing = (
  actualValue: unknown,
  expectedValue: unknown,
  reason: string,
  failure: PostureFailureReason,
): CheckResult => ({ isPassing: false, actualValue, expectedValue, reason, failure });

export const passing = (actualValue: unknown, expectedValue: unknown): CheckResult => ({
  isPassing: true,
  actualValue,
  expectedValue,
});

/** Nothing reported for this type yet: failing, waiting for the device (as every type's first evaluation). */
export function noDataYet(descriptor: PostureTypeDescriptor, expectedValue: unknown): CheckResult {
  return failing(null, expectedValue, `the device has not reported ${descriptor.waitingFor}`, {
    code: 'NO_DATA_YET',
    missing: descriptor.id,
  });
}

/** The fact is reported as unknown (null): failing with the type's own *_UNKNOWN reason, never passing. */
export function unknownFact(
  code: PostureFailureReason['code'],
  fact: ReportedFactData,
  actualValue: unknown,
  expectedValue: unknown,
  what: string,
): CheckResult {
  const words = unknownReasonOf(fact);
  return failing(
    actualValue,
    expectedValue,
    `the device could not tell ${what}${words ? `: ${words}` : ''}`,
    {
      code,
      ...(words ? { unknownReason: words } : {}),
    },
  );
}
