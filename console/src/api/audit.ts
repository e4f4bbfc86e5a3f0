/**
 * The audit trail (`GET /audit-events`, docs/AUDIT.md) as the console asks for it: the page's filters turned
 * into the API's grammar, an identity or service typed by name or id, a reference however it was read out.
 */
import { normaliseReference, type AuditEventView } from '../../../src/api/audit-text.js';
import { api } from './client.js';
import { quoted, type Page } from './list-query.js';

export type { AuditEventView };

export interface AuditFilters {
  /** an identity's name or id (an id the controller no longer knows: a deleted identity's) */
  identity?: string;
  service?: string;
  /** a type, or a prefix ending in `.*` (`access.*`) */
  type?: string;
  /** RFC 3339 instants */
  from?: string;
  until?: string;
  reference?: string;
}

/** The id of the entity named so, else the text itself (the trail outlives what it names). */
async function idOf(collection: string, nameOrId: string): Promise<string> {
  const answer = await api.get<{ id: string }[]>(
    `/${collection}?limit=1&filter=${encodeURIComponent(`name = ${quoted(nameOrId)} or id = ${quoted(nameOrId)}`)}`,
  );
  return answer.data[0]?.id ?? nameOrId;
}

export async function auditFilterOf(filters: AuditFilters): Promise<string> {
  const terms: string[] = [];
  const identity = filters.identity?.trim();
  const service = filters.service?.trim();
  const type = filters.type?.trim();
  if (identity) terms.push(`identityId = ${quoted(await idOf('identities', identity))}`);
  if (service) terms.push(`serviceId = ${quoted(await idOf('services', service))}`);
  if (type)
    terms.push(
      type.endsWith('.*') ? `type startswith ${quoted(type.slice(0, -1))}` : `type = ${quoted(type)}`,
    );
  if (filters.from) terms.push(`createdAt >= datetime(${filters.from})`);
  if (filters.until) terms.push(`createdAt < datetime(${filters.until})`);
  if (filters.reference?.trim()) terms.push(`reference = ${quoted(normaliseReference(filters.reference))}`);
  return terms.join(' and ');
}

export async function auditPage(
  filter: string,
  order: 'asc' | 'desc',
  offset: number,
  limit: number,
): Promise<Page<AuditEventView>> {
  const query = `${filter} sort by createdAt ${order}, id ${order} skip ${offset} limit ${limit}`.trim();
  const answer = await api.get<AuditEventView[]>(`/audit-events?filter=${encodeURIComponent(query)}`);
  return { items: answer.data, totalCount: answer.meta.pagination?.totalCount ?? answer.data.length };
}

export const auditEvent = (id: string) =>
  api.get<AuditEventView>(`/audit-events/${encodeURIComponent(id)}`).then((a) => a.data);
