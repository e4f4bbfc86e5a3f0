/**
 * A posture check's `enforcement` field (a Postern extension, the same on every check type): read from a
 * create, PUT or PATCH body, and shown on every check. It lives here, beside the type modules rather than in
 * them, because it means the same for every type: it does not change how a check evaluates, only what a
 * failing result does (access/decisions/enforcement.ts).
 */
import type { FieldProblem, Enforcement, EnforcementMode, PostureCheck } from '../posture-model.js';
import { ENFORCEMENT_MODES } from '../posture-model.js';
import type { ParseMode } from './checks/check-module.js';

/** What a check created without the field (as OpenZiti's clients do) gets: enforced, as before. */
export const ENFORCE: Enforcement = Object.freeze({ mode: 'enforce', enforceFrom: null }) as Enforcement;

/** The check's enforcement; checks stored before the field existed enforce. */
export function enforcementOf(check: Pick<PostureCheck, 'enforcement'>): Enforcement {
  return check.enforcement ?? ENFORCE;
}

export function enforcementToWire(enforcement: Enforcement): {
  mode: EnforcementMode;
  enforceFrom: string | null;
} {
  return { mode: enforcement.mode, enforceFrom: enforcement.enforceFrom?.toISOString() ?? null };
}

/** RFC 3339 date-time with a zone (`Z` or an offset), as the API's other date-times. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** A date-time field of a body, or a problem naming it; undefined when the value is not one. */
export function parseDateTime(value: unknown, field: string, problems: FieldProblem[]): Date | undefined {
  const at = typeof value === 'string' && DATE_TIME.test(value) ? new Date(value) : undefined;
  if (!at || Number.isNaN(at.getTime())) {
    problems.push({ field, reason: 'must be an RFC 3339 date-time, e.g. 2026-03-03T09:00:00Z', value });
    return undefined;
  }
  return at;
}

/**
 * The body's `enforcement`, or a problem naming `enforcement`, `enforcement.mode` or `enforcement.enforceFrom`.
 * Absent or null: a create or PUT enforces, a PATCH keeps the stored one; a given object replaces it whole.
 * A `warn` whose deadline has already passed is allowed: it is simply enforced (how every deadline ends up).
 */
export function parseEnforcement(
  body: Record<string, unknown>,
  mode: ParseMode,
  existing: Enforcement | undefined,
  problems: FieldProblem[],
): Enforcement {
  const value = body.enforcement;
  if (value === undefined || value === null) return mode === 'patch' ? (existing ?? ENFORCE) : ENFORCE;
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.push({ field: 'enforcement', reason: 'must be an object {mode, enforceFrom}', value });
    return ENFORCE;
  }
  const given = value as Record<string, unknown>;
  const unknown = Object.keys(given).find((k) => k !== 'mode' && k !== 'enforceFrom');
  if (unknown !== undefined) {
    problems.push({ field: `enforcement.${unknown}`, reason: 'is not a field of enforcement' });
    return ENFORCE;
  }
  const modeValue = given.mode ?? 'enforce';
  if (!(ENFORCEMENT_MODES as readonly unknown[]).includes(modeValue)) {
    problems.push({
      field: 'enforcement.mode',
      reason: `must be one of ${ENFORCEMENT_MODES.join(', ')}`,
      value: modeValue,
    });
    return ENFORCE;
  }
  const enforcementMode = modeValue as EnforcementMode;
  const from = given.enforceFrom;
  if (enforcementMode !== 'warn') {
    if (from !== undefined && from !== null) {
      problems.push({
        field: 'enforcement.enforceFrom',
        reason: `only a warn check has a deadline; ${enforcementMode} takes none`,
        value: from,
      });
    }
    return { mode: enforcementMode, enforceFrom: null };
  }
  if (from === undefined || from === null) {
    problems.push({ field: 'enforcement.enforceFrom', reason: 'is required for mode warn' });
    return ENFORCE;
  }
  const at = parseDateTime(from, 'enforcement.enforceFrom', problems);
  return at ? { mode: 'warn', enforceFrom: at } : ENFORCE;
}
