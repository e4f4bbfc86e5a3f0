/** The audit trail as the admin CLI prints it: a table, or one line per event for `--follow`. */
import { table } from '../agent/cli/format.js';
import { auditSentence, auditSummary, type AuditEventView } from '../api/audit-text.js';
import { namesOf } from './resource-commands.js';
import type { ManagementApi } from './management-api.js';
import type { Entity } from './resources.js';

const NAMED = { namedRefs: { identityId: 'identities', serviceId: 'services' } };

/** `2026-11-28T10:42:07Z`: to the second, as people compare times on a screen. */
const shownTime = (iso: string) => iso.replace(/\.\d+Z$/, 'Z');

export async function eventNames(api: ManagementApi, events: readonly AuditEventView[]) {
  return namesOf(api, NAMED, events as unknown as Entity[]);
}

const nameOr = (names: ReadonlyMap<string, string>, id: string | null) =>
  id === null ? '' : (names.get(id) ?? id);

export function auditTable(events: readonly AuditEventView[], names: ReadonlyMap<string, string>): string {
  return table(
    ['TIME', 'REF', 'TYPE', 'ACTOR', 'IDENTITY', 'SERVICE', 'WHAT'],
    events.map((e) => [
      shownTime(e.createdAt),
      e.reference,
      e.type,
      e.actor?.name ?? '',
      nameOr(names, e.identityId),
      nameOr(names, e.serviceId),
      auditSummary(e),
    ]),
  );
}

/** One line per event, for `--follow`: its widths cannot wait for the events still to come. */
export function auditLine(e: AuditEventView, names: ReadonlyMap<string, string>): string {
  const about = [
    e.identityId ? `identity ${nameOr(names, e.identityId)}` : '',
    e.serviceId && e.type !== 'access.refused' && e.type !== 'access.granted'
      ? `service ${nameOr(names, e.serviceId)}`
      : '',
  ].filter(Boolean);
  const sentence = auditSentence(e);
  return `${shownTime(e.createdAt)}  ${e.reference}  ${sentence}${about.length ? `  [${about.join(', ')}]` : ''}`;
}
