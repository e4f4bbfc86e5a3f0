/**
 * The contract every posture check type implements. One module per type (docs/ARCHITECTURE.md, "How to add a posture check type") keeps a type's
 * validation, evaluation, wire form and failure values together, the way OpenZiti keeps one file per type;
 * the controller only ever talks to a type through this interface, looked up in the registry (`index.ts`).
 */
import type {
  CheckResult,
  EvaluationContext,
  FieldProblem,
  PostureSnapshot,
  PostureCheck,
  PostureCheckSpec,
  SnapshotParts,
} from '../../posture-model.js';

/** `create` and `update` (PUT) need every required field; `patch` merges the given fields over `existing`. */
export type ParseMode = 'create' | 'update' | 'patch';

export type ParseResult<T extends PostureCheck = PostureCheck> =
  { ok: true; spec: PostureCheckSpec<T> } | { ok: false; problems: FieldProblem[] };

export interface CheckModule<T extends PostureCheck = PostureCheck> {
  typeId: T['typeId'];
  /** Parse, validate and normalise the type-specific fields of a request body.
   *  mode 'create' and 'update' (PUT) require the type's required fields; 'patch' makes every field optional and
   *  merges over `existing` (a patch without `existing` is validated like a create). Returns the spec or every
   *  problem found, each naming the field the way the API reports it, e.g. `operatingSystems[0].versions[0]`,
   *  `macAddresses[2]`, `processes[1].hashes[0]`. Total: any JSON value in any field gives problems, never a throw. */
  parse(body: Record<string, unknown>, mode: ParseMode, existing?: PostureCheckSpec<T>): ParseResult<T>;
  /** Type-specific fields for the API detail view (OpenZiti field names). */
  toWire(check: T): Record<string, unknown>;
  evaluate(check: T, data: PostureSnapshot | null, ctx: EvaluationContext): CheckResult;
  /** the parts of the snapshot `evaluate` reads (a bulk read loads only these) */
  reads: SnapshotParts;
  /** -1 for no timeout (all but MFA) */
  timeoutSeconds(check: T): number;
  /** seconds left before this check times out for the session, -1 none, 0 when MFA not passed
   *  (OpenZiti's GetTimeoutRemainingSeconds) */
  timeoutRemaining(check: T, data: PostureSnapshot | null, ctx: EvaluationContext): number;
  /** extra fields of a posture query for this check on GET /services: PROCESS `process {osType,path}`,
   *  PROCESS_MULTI `processes [{osType,path}]`, MFA `promptOnWake`, `promptOnUnlock`; {} otherwise */
  queryFields(check: T): Record<string, unknown>;
  /** The moment this check's result will next change by itself (MFA timeout or grace expiry) for this API
   *  session, or null. The controller sets an exact timer for it: evaluating at that instant gives the new result. */
  nextChangeAt(check: T, data: PostureSnapshot | null, ctx: EvaluationContext): Date | null;
}
