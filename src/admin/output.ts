/**
 * What the admin CLI prints. For people: a table per list (name, id, then the noun's own columns), one
 * `field  value` line per field for one entity. For scripts (`--json`): a list prints the API's list
 * envelope as the controller sent it (`data`, and `meta.pagination` with limit, offset and totalCount), so
 * the same jq paths work on the CLI's output and on the API's; anything else prints a single JSON object; either is one line.
 */
import type { Envelope } from '../api/envelopes.js';
import { table } from '../agent/cli/format.js';
import type { Entity, Resource } from './resources.js';

/** `--json`: one value on one line, so a script can parse every line of standard output. */
export const json = (value: unknown): string => JSON.stringify(value);

export function listText(
  resource: Resource,
  page: Envelope<Entity[]>,
  filtered: boolean,
  names: ReadonlyMap<string, string> = new Map(),
): string {
  const items = page.data;
  if (items.length === 0) return filtered ? `No ${resource.noun} match the filter.` : `No ${resource.noun}.`;
  const named = !resource.unnamed;
  const rows = items.map((e) => [
    ...(named ? [String(e.name ?? '')] : []),
    e.id,
    ...resource.columns.map((c) => c.value(e, names)),
  ]);
  const lines = [table([...(named ? ['NAME'] : []), 'ID', ...resource.columns.map((c) => c.header)], rows)];
  const pagination = page.meta?.pagination;
  if (pagination && (pagination.offset > 0 || pagination.offset + items.length < pagination.totalCount)) {
    const first = pagination.offset + 1;
    const last = pagination.offset + items.length;
    const more = last < pagination.totalCount ? `; --offset ${last} for the next` : '';
    lines.push(`(${first}–${last} of ${pagination.totalCount}${more})`);
  }
  return lines.join('\n');
}

/** A field's value on one line: text as it is, anything structured as compact JSON. */
export function shown(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'string') return value || '""';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Every field but the API's links, one per line, names aligned. */
export function fieldLines(record: Record<string, unknown>): string {
  const entries = Object.entries(record).filter(([key]) => key !== '_links');
  const width = Math.max(0, ...entries.map(([key]) => key.length));
  return entries.map(([key, value]) => `${key.padEnd(width)}  ${shown(value)}`).join('\n');
}
