/**
 * The verbs staged enforcement adds to some nouns: `preview` (posture checks, service policies: what a
 * create, update or delete would do to Dial access, from the posture data the controller has, changing
 * nothing) and `history` (an exception's grants, changes, deletion and expiry, with who did each); and the
 * lookup of flags that name another entity by id or name (an exception's `--identity`, `--check`).
 */
import { UsageError } from '../agent/cli/cli-args.js';
import { table } from '../agent/cli/format.js';
import { impactHeadline, type AccessPreviewFigures } from '../api/access-preview-text.js';
import { refuseOptionsOutside, targetOf, type VerbOptions } from './admin-args.js';
import { withManagementApi, type AdminContext } from './admin-session.js';
import type { ManagementApi } from './management-api.js';
import { json, shown } from './output.js';
import { buildBody } from './request-body.js';
import type { ExtraVerb, FieldFlag, Resource } from './resources.js';

interface PreviewItem {
  identityId: string;
  identityName: string;
  serviceId: string;
  serviceName: string;
  reasons: {
    postureCheckName: string;
    actualValue: unknown;
    expectedValue: unknown;
    reason?: string | null;
  }[];
}
type Preview = AccessPreviewFigures & { newlyRefused: PreviewItem[]; newlyGranted: PreviewItem[] };

interface HistoryEntry {
  at: string;
  action: string;
  by: { name?: string } | null;
  expiresAt: string;
  reason: string;
}

/** Each flag of `resource.refs` given: its id or name replaced by the id the API takes. */
export async function resolveRefs(
  api: ManagementApi,
  resource: Resource,
  fields: Partial<Record<FieldFlag, unknown>>,
  body: Record<string, unknown>,
): Promise<void> {
  for (const [flag, ref] of Object.entries(resource.refs ?? {}) as [
    FieldFlag,
    { collection: string; singular: string },
  ][]) {
    const value = fields[flag];
    const field = resource.fieldFlags[flag];
    if (typeof value !== 'string' || !field) continue;
    body[field] = (await api.resolve(ref.collection, value, ref.singular)).id;
  }
}

function itemRows(items: PreviewItem[], withReasons: boolean): string[][] {
  return items.flatMap((item) => {
    const reasons = withReasons && item.reasons.length ? item.reasons : [undefined];
    return reasons.map((r, i) => [
      i === 0 ? item.identityName : '',
      i === 0 ? item.serviceName : '',
      ...(withReasons
        ? [r?.postureCheckName ?? '', shown(r?.actualValue), shown(r?.expectedValue), r?.reason ?? '']
        : []),
    ]);
  });
}

/** The headline, then each list as a table; "and N more" where the API counted more than it listed. */
export function previewText(preview: Preview): string {
  const lines = [impactHeadline(preview)];
  const section = (title: string, items: PreviewItem[], total: number, withReasons: boolean) => {
    if (total === 0) return;
    const header = ['IDENTITY', 'SERVICE', ...(withReasons ? ['CHECK', 'HAS', 'NEEDS', 'REASON'] : [])];
    lines.push('', `${title}:`, table(header, itemRows(items, withReasons)));
    if (items.length < total) lines.push(`(and ${total - items.length} more)`);
  };
  section('Newly refused', preview.newlyRefused, preview.newlyRefusedCount, true);
  section('Newly granted', preview.newlyGranted, preview.newlyGrantedCount, false);
  return lines.join('\n');
}

export function historyText(entries: HistoryEntry[]): string {
  if (entries.length === 0) return 'No history.';
  return table(
    ['AT', 'ACTION', 'BY', 'EXPIRES', 'REASON'],
    entries.map((e) => [e.at, e.action, e.by?.name ?? '(the controller)', e.expiresAt, e.reason]),
  );
}

const PREVIEW_KINDS = ['create', 'update', 'delete'] as const;

/** `preview create [NAME] …`, `preview update <id-or-name> …`, `preview delete <id-or-name>`. */
async function preview(ctx: AdminContext, resource: Resource): Promise<void> {
  const [kind, ...words] = ctx.args.words;
  if (!PREVIEW_KINDS.includes(kind as (typeof PREVIEW_KINDS)[number]))
    throw new UsageError(`'${resource.noun} preview' needs what to preview: create, update or delete`);
  const args = { ...ctx.args, words, verb: `preview ${kind}` };
  refuseOptionsOutside(args, kind === 'delete' ? {} : { body: true, fields: 'all' });
  let body: Record<string, unknown> = {};
  let target: string | undefined;
  if (kind === 'create') {
    const [name, extra] = words;
    if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
    body = await buildBody(args, resource, { name });
  } else {
    target = targetOf(args);
    if (kind === 'update') body = await buildBody(args, resource, undefined);
  }
  const answer = await withManagementApi(ctx, async (api) => {
    await resolveRefs(api, resource, args.fields, body);
    if (target !== undefined) {
      const entity = await api.resolve(resource.collection, target, resource.singular);
      body = kind === 'delete' ? { id: entity.id, delete: true } : { ...body, id: entity.id };
    }
    return api.post<Preview>([resource.collection, 'preview'], body);
  });
  ctx.print(ctx.args.json ? json(answer) : previewText(answer));
}

async function history(ctx: AdminContext, resource: Resource): Promise<void> {
  const target = targetOf(ctx.args);
  const page = await withManagementApi(ctx, async (api) => {
    const entity = await api.resolve(resource.collection, target, resource.singular);
    return api.read<HistoryEntry[]>([resource.collection, entity.id, 'history']);
  });
  ctx.print(ctx.args.json ? json(page) : historyText(page.data));
}

export const ROLLOUT_VERBS: Record<
  Extract<ExtraVerb, 'preview' | 'history'>,
  { run: (ctx: AdminContext, resource: Resource) => Promise<void>; takes: VerbOptions }
> = {
  // preview checks its own options: what it takes depends on the kind of change
  preview: { run: preview, takes: { body: true, fields: 'all' } },
  history: { run: history, takes: {} },
};
