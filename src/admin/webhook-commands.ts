/**
 * The verbs the `webhooks` noun adds: `deliveries` (one subscription's, or every one's; `--state dead` is the
 * dead-letter list), `redeliver` (a dead or delivered delivery queued again) and `syslog` (the syslog export's
 * status). What each delivery went through is shown (attempts, the last error, the next attempt); the
 * subscription's secret never is (no answer of the API has it).
 */
import { UsageError } from '../agent/cli/cli-args.js';
import { table } from '../agent/cli/format.js';
import { targetOf, type VerbOptions } from './admin-args.js';
import { withManagementApi, type AdminContext } from './admin-session.js';
import type { ManagementApi } from './management-api.js';
import { fieldLines, json } from './output.js';
import type { Entity, Resource } from './resources.js';

interface DeliveryRow {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  state: string;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

/** The syslog export's deliveries carry this instead of a subscription's id. */
const SYSLOG = 'syslog';

async function webhookNames(api: ManagementApi, rows: readonly DeliveryRow[]): Promise<Map<string, string>> {
  const ids = [...new Set(rows.map((r) => r.webhookId).filter((id) => id !== SYSLOG))];
  const names = new Map<string, string>([[SYSLOG, '(syslog)']]);
  if (ids.length === 0) return names;
  const filter = `id in [${ids.map((id) => JSON.stringify(id)).join(', ')}]`;
  for (const hook of (await api.list('webhooks', { filter, limit: ids.length })).data)
    names.set(hook.id, String(hook.name ?? hook.id));
  return names;
}

export function deliveriesText(
  rows: readonly DeliveryRow[],
  names: ReadonlyMap<string, string>,
  total: number,
  offset: number,
): string {
  if (rows.length === 0) return 'No deliveries.';
  const lines = [
    table(
      ['ID', 'WEBHOOK', 'EVENT TYPE', 'STATE', 'ATTEMPTS', 'NEXT ATTEMPT', 'CREATED', 'LAST ERROR'],
      rows.map((d) => [
        d.id,
        names.get(d.webhookId) ?? d.webhookId,
        d.eventType,
        d.state,
        String(d.attempts),
        d.nextAttemptAt ?? '',
        d.createdAt,
        // one line per delivery: a receiver's answer may hold newlines
        (d.lastError ?? '').replace(/\s+/g, ' ').slice(0, 120),
      ]),
    ),
  ];
  if (offset > 0 || offset + rows.length < total) {
    const last = offset + rows.length;
    const more = last < total ? `; --offset ${last} for the next` : '';
    lines.push(`(${offset + 1}–${last} of ${total}${more})`);
  }
  return lines.join('\n');
}

/** `webhooks deliveries [<id-or-name>] [--state S] [--limit N] [--offset N]`. */
async function deliveries(ctx: AdminContext, resource: Resource): Promise<void> {
  const { args } = ctx;
  if (args.list.filter !== undefined)
    throw new UsageError(`--filter does not apply to '${args.noun} deliveries'; use --state`);
  const [target, extra] = args.words;
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
  const query = { state: args.state, limit: args.list.limit, offset: args.list.offset };
  const { page, names } = await withManagementApi(ctx, async (api) => {
    let parts = ['webhook-deliveries'];
    if (target !== undefined) {
      const hook: Entity = await api.resolve(resource.collection, target, resource.singular);
      parts = [resource.collection, hook.id, 'deliveries'];
    }
    const page = await api.read<DeliveryRow[]>(parts, query);
    return { page, names: args.json ? new Map<string, string>() : await webhookNames(api, page.data) };
  });
  if (args.json) return ctx.print(json(page));
  const pagination = page.meta?.pagination;
  ctx.print(
    deliveriesText(page.data, names, pagination?.totalCount ?? page.data.length, pagination?.offset ?? 0),
  );
}

/** `webhooks redeliver <delivery-id>`: the dead letter (or a delivered one) queued again, as a new delivery. */
async function redeliver(ctx: AdminContext): Promise<void> {
  const id = targetOf(ctx.args, 'the id of a delivery (webhooks deliveries --state dead lists them)');
  const fresh = await withManagementApi(ctx, (api) =>
    api.post<DeliveryRow>(['webhook-deliveries', id, 'redeliver']),
  );
  if (ctx.args.json) return ctx.print(json(fresh));
  ctx.print(`Queued the ${fresh.eventType} event ${fresh.eventId} again: delivery ${fresh.id}.`);
}

/** `webhooks syslog`: whether the syslog export is configured, connected, and how full its buffer is. */
async function syslog(ctx: AdminContext): Promise<void> {
  if (ctx.args.words.length) throw new UsageError(`unexpected argument '${ctx.args.words[0]}'`);
  const status = await withManagementApi(ctx, (api) =>
    api.read<Record<string, unknown>>(['event-export', 'syslog']),
  );
  ctx.print(ctx.args.json ? json(status.data) : fieldLines(status.data));
}

export const WEBHOOK_VERBS: Record<
  'deliveries' | 'redeliver' | 'syslog',
  { run: (ctx: AdminContext, resource: Resource) => Promise<void>; takes: VerbOptions }
> = {
  deliveries: { run: deliveries, takes: { list: true, state: true } },
  redeliver: { run: redeliver, takes: {} },
  syslog: { run: syslog, takes: {} },
};
