/**
 * The audit commands' filter flags as one filter of the controller's grammar: `--identity dana --type
 * access.* --since 2h` becomes `identityId = "…" and type startswith "access." and createdAt >=
 * datetime(…)`. Times and types are checked before signing in (a typo costs no password prompt); names are
 * looked up once signed in.
 */
import { UsageError } from '../agent/cli/cli-args.js';
import { isControllerError } from '../controller-client/controller-error.js';
import { normaliseReference } from '../api/audit-text.js';
import type { AdminArgs } from './admin-args.js';
import { filterString, type ManagementApi } from './management-api.js';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** `--since 2h`, `--until 2026-11-27T10:42:00Z`: how long ago (s, m, h, d, w), or an RFC 3339 time. */
export function parseWhen(flag: string, value: string, now: Date): Date {
  const ago = /^(\d+)([smhdw])$/.exec(value.trim());
  if (ago) return new Date(now.getTime() - Number(ago[1]) * UNIT_MS[ago[2] as keyof typeof UNIT_MS]);
  const rfc3339 = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/i;
  const at = rfc3339.test(value.trim()) ? new Date(value.trim()) : new Date(Number.NaN);
  if (Number.isNaN(at.getTime()))
    throw new UsageError(
      `${flag} must be a time such as 2026-11-27T10:42:00Z (or a date, 2026-11-27, at midnight UTC) ` +
        `or how long ago, such as 90s, 30m, 2h, 1d or 1w; got '${value}'`,
    );
  return at;
}

const TYPE = /^[a-z][a-z0-9-]*(\.[a-z0-9-]+)*$/;

/** `--type`: one type, a comma-separated list, or a prefix ending in `.*` (`access.*`). */
function typeCondition(value: string): string {
  const types = value
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const prefixes = types.filter((t) => t.endsWith('.*')).map((t) => t.slice(0, -1));
  const exact = types.filter((t) => !t.endsWith('.*'));
  for (const t of [...exact, ...prefixes.map((p) => p.slice(0, -1))])
    if (!TYPE.test(t))
      throw new UsageError(
        `--type takes event types such as access.refused, a list (access.refused,access.granted) or a ` +
          `prefix (access.*); got '${value}'`,
      );
  const terms = [
    ...(exact.length === 1 ? [`type = ${filterString(exact[0]!)}`] : []),
    ...(exact.length > 1 ? [`type in [${exact.map(filterString).join(', ')}]`] : []),
    ...prefixes.map((p) => `type startswith ${filterString(p)}`),
  ];
  if (terms.length === 0) throw new UsageError(`--type needs a type, got '${value}'`);
  return terms.length === 1 ? terms[0]! : `(${terms.join(' or ')})`;
}

/** What the flags ask for, checked, before anything is sent. */
export interface AuditQuery {
  identity?: string;
  service?: string;
  actor?: string;
  /** conditions needing no lookup: type, time range, reference, --filter */
  fixed: string[];
}

export function auditQueryOf(args: AdminArgs, now: Date): AuditQuery {
  const { audit, fields, list } = args;
  const fixed: string[] = [];
  if (typeof fields.type === 'string') fixed.push(typeCondition(fields.type));
  const since = audit.since === undefined ? undefined : parseWhen('--since', audit.since, now);
  const until = audit.until === undefined ? undefined : parseWhen('--until', audit.until, now);
  if (since && until && since >= until) throw new UsageError('--since must be before --until');
  if (since) fixed.push(`createdAt >= datetime(${since.toISOString()})`);
  if (until) fixed.push(`createdAt < datetime(${until.toISOString()})`);
  if (audit.reference !== undefined)
    fixed.push(`reference = ${filterString(normaliseReference(audit.reference))}`);
  if (list.filter?.trim()) fixed.push(`(${list.filter})`);
  return {
    identity: typeof fields.identity === 'string' ? fields.identity : undefined,
    service: audit.service,
    actor: audit.actor,
    fixed,
  };
}

/**
 * An identity's or service's id by its id or name. The trail outlives what it names: a value that is neither
 * a current id nor a current name is taken as the id of one deleted since.
 */
async function idOf(api: ManagementApi, collection: string, idOrName: string): Promise<string> {
  try {
    return (await api.get(collection, idOrName)).id;
  } catch (error) {
    if (!isControllerError(error, 'NOT_FOUND')) throw error;
  }
  const named = await api.list(collection, { filter: `name = ${filterString(idOrName)}`, limit: 1 });
  return named.data[0]?.id ?? idOrName;
}

/** The whole filter, names looked up; '' for everything. */
export async function auditFilter(api: ManagementApi, query: AuditQuery): Promise<string> {
  const terms: string[] = [];
  if (query.identity)
    terms.push(`identityId = ${filterString(await idOf(api, 'identities', query.identity))}`);
  if (query.service) terms.push(`serviceId = ${filterString(await idOf(api, 'services', query.service))}`);
  if (query.actor) terms.push(`actorId = ${filterString(await idOf(api, 'identities', query.actor))}`);
  return [...terms, ...query.fixed].join(' and ');
}
