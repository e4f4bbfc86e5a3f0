/**
 * The admin CLI's reading of staged enforcement (resources.ts uses these for its nouns): a posture check's
 * `--enforcement-mode` and `--enforce-from`, and an exception's flags. Structural types only, so the noun
 * table can import this file without this file importing it back.
 */
import { UsageError } from '../agent/cli/cli-args.js';

type Body = Record<string, unknown>;
interface Context {
  fields: Partial<Record<string, string | string[] | boolean>>;
  expiresInMs: number | undefined;
  create: boolean;
  now: Date;
}
interface EntityColumn {
  header: string;
  value(entity: Record<string, unknown>, names: ReadonlyMap<string, string>): string;
}

/** How long an exception lasts when the command names no expiry: a week to fix the device. */
export const DEFAULT_EXCEPTION_MS = 7 * 86_400_000;

/**
 * `--enforce-from` alone means a warning until then; a mode without a deadline sends `enforceFrom: null`
 * (the API replaces the whole `enforcement` object, and only `warn` takes a deadline, which it checks).
 */
export function completeEnforcement(body: Body, { fields }: Context): void {
  const enforcement = body.enforcement as Body | undefined;
  if (!enforcement || typeof enforcement !== 'object') return;
  if (fields['enforce-from'] !== undefined && fields['enforcement-mode'] === undefined)
    enforcement.mode = 'warn';
  if (!('enforceFrom' in enforcement)) enforcement.enforceFrom = null;
}

/**
 * `--all-checks` is `postureCheckId: null`; `--expires-in 7d` an `expiresAt` that far from now. A create must
 * say which check (a forgotten `--check` must not read as every check) and expires in a week unless told.
 */
export function completeException(body: Body, { fields, expiresInMs, create, now }: Context): void {
  if (fields['all-checks']) {
    if (fields.check !== undefined) throw new UsageError('give --check or --all-checks, not both');
    body.postureCheckId = null;
  }
  if (expiresInMs !== undefined) {
    if (fields['expires-at'] !== undefined)
      throw new UsageError('give --expires-at or --expires-in, not both');
    body.expiresAt = new Date(now.getTime() + expiresInMs).toISOString();
  }
  if (!create) return;
  if (!('postureCheckId' in body))
    throw new UsageError('say which check: --check ID-OR-NAME, or --all-checks for every check');
  if (!('expiresAt' in body)) body.expiresAt = new Date(now.getTime() + DEFAULT_EXCEPTION_MS).toISOString();
}

/** `enforce`, `report-only`, `warn until <date>`. */
export const enforcementColumn: EntityColumn = {
  header: 'ENFORCEMENT',
  value: (e) => {
    const enforcement = e.enforcement as { mode?: string; enforceFrom?: string | null } | undefined;
    const mode = enforcement?.mode ?? 'enforce';
    return mode === 'warn' && enforcement?.enforceFrom ? `warn until ${enforcement.enforceFrom}` : mode;
  },
};

const field = (e: Record<string, unknown>, key: string) =>
  e[key] === null || e[key] === undefined ? '' : String(e[key]);

/** An entity's name where the page's lookup found it, else its id (deleted since, or not readable). */
const nameOf = (id: string, names: ReadonlyMap<string, string>) => names.get(id) ?? id;

export const EXCEPTION_COLUMNS: readonly EntityColumn[] = [
  {
    header: 'FOR',
    value: (e, names) =>
      e.identityId
        ? nameOf(String(e.identityId), names)
        : ((e.identityRoles as string[] | null) ?? []).join(', '),
  },
  {
    header: 'CHECK',
    value: (e, names) => (e.postureCheckId ? nameOf(String(e.postureCheckId), names) : 'every check'),
  },
  { header: 'EXPIRES', value: (e) => field(e, 'expiresAt') },
  { header: 'STATE', value: (e) => field(e, 'state') },
  { header: 'GRANTED BY', value: (e) => String((e.grantedBy as { name?: string } | null)?.name ?? '') },
  { header: 'REASON', value: (e) => field(e, 'reason') },
];
