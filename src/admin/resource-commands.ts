/**
 * The verbs every noun shares (list, show, create, update, delete) and a noun's extra actions, written once
 * against the noun table (resources.ts). Arguments and bodies are checked before signing in, so a typo costs
 * no password prompt.
 */
import { UsageError } from '../agent/cli/cli-args.js';
import { CliError, EXIT, type ExitCode } from '../agent/cli/cli-errors.js';
import { isControllerError, type ControllerError } from '../controller-client/controller-error.js';
import { refuseOptionsOutside, targetOf, type VerbOptions } from './admin-args.js';
import { withManagementApi, type AdminContext } from './admin-session.js';
import { fieldLines, json, listText } from './output.js';
import { buildBody } from './request-body.js';
import type { Entity, Resource } from './resources.js';
import type { ManagementApi } from './management-api.js';
import { EXTRA_VERBS, resolveRefs } from './rollout-commands.js';

type Verb = (ctx: AdminContext, resource: Resource) => Promise<void>;

const label = (resource: Resource, entity: { id: string; name?: unknown }) =>
  `${resource.singular} '${String(entity.name ?? entity.id)}' (${entity.id})`;

const list: Verb = async (ctx, resource) => {
  const { args } = ctx;
  if (args.words.length) throw new UsageError(`unexpected argument '${args.words[0]}'`);
  const { page, names } = await withManagementApi(ctx, async (api) => {
    const page = await api.list(resource.collection, args.list);
    return { page, names: args.json ? new Map<string, string>() : await namesOf(api, resource, page.data) };
  });
  ctx.print(args.json ? json(page) : listText(resource, page, args.list.filter !== undefined, names));
};

/** The names of the entities the items reference by id (`namedRefs`): one list request per collection. */
async function namesOf(
  api: ManagementApi,
  resource: Resource,
  items: readonly Entity[],
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const [field, collection] of Object.entries(resource.namedRefs ?? {})) {
    const ids = [...new Set(items.map((e) => e[field]).filter((v): v is string => typeof v === 'string'))];
    if (ids.length === 0) continue;
    const filter = `id in [${ids.map((id) => JSON.stringify(id)).join(', ')}]`;
    for (const e of (await api.list(collection, { filter, limit: ids.length })).data)
      if (typeof e.name === 'string') names.set(e.id, e.name);
  }
  return names;
}

const show: Verb = async (ctx, resource) => {
  const target = targetOf(ctx.args);
  const entity = await withManagementApi(ctx, (api) =>
    api.resolve(resource.collection, target, resource.singular),
  );
  ctx.print(ctx.args.json ? json(entity) : fieldLines(entity));
};

const create: Verb = async (ctx, resource) => {
  const [name, extra] = ctx.args.words;
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
  const body = await buildBody(ctx.args, resource, { name });
  const created = await withManagementApi(ctx, async (api) => {
    await resolveRefs(api, resource, ctx.args.fields, body);
    return api.create(resource.collection, body);
  });
  if (ctx.args.json) return ctx.print(json(created));
  ctx.print(`Created ${label(resource, { ...created, name: body.name })}.`);
  // What a create shows only once (an edge router's enrollment token) is printed, not lost.
  const { id: _id, _links, ...onceOnly } = created;
  if (Object.keys(onceOnly).length) ctx.print(fieldLines(onceOnly));
};

const update: Verb = async (ctx, resource) => {
  const target = targetOf(ctx.args);
  const body = await buildBody(ctx.args, resource, undefined);
  const updated = await withManagementApi(ctx, async (api) => {
    const entity = await api.resolve(resource.collection, target, resource.singular);
    await resolveRefs(api, resource, ctx.args.fields, body);
    await api.patch(resource.collection, entity.id, body);
    return api.get(resource.collection, entity.id);
  });
  ctx.print(ctx.args.json ? json(updated) : `Updated ${label(resource, updated)}.`);
};

const remove: Verb = async (ctx, resource) => {
  const target = targetOf(ctx.args);
  const deleted = await withManagementApi(ctx, async (api) => {
    const entity = await api.resolve(resource.collection, target, resource.singular);
    try {
      await api.delete(resource.collection, entity.id, ctx.args.cascade);
    } catch (error) {
      if (isControllerError(error, 'CAN_NOT_DELETE_REFERENCED_ENTITY'))
        throw stillReferenced(resource, entity, error);
      throw error;
    }
    return entity;
  });
  ctx.print(
    ctx.args.json
      ? json({ id: deleted.id, name: deleted.name ?? null })
      : `Deleted ${label(resource, deleted)}.`,
  );
};

/** A 409 in the CLI's words: which policies name it, and the flag (not the query) that cascades. */
function stillReferenced(resource: Resource, entity: Entity, error: ControllerError): CliError {
  const referrers = (error.apiCause as { referrers?: { name?: string }[] } | undefined)?.referrers;
  if (!Array.isArray(referrers) || referrers.length === 0)
    return new CliError(`cannot delete ${label(resource, entity)}: ${error.message}`);
  const names = referrers.map((r) => `'${r.name}'`).join(', ');
  const one = referrers.length === 1;
  return new CliError(
    `cannot delete ${label(resource, entity)}: the service ${one ? 'policy' : 'policies'} ${names} ` +
      `${one ? 'names' : 'name'} it; remove it from ${one ? 'that policy' : 'them'} first, or delete with ` +
      `--cascade, which removes it from ${one ? 'the policy' : 'them'} too`,
  );
}

const VERBS: Record<string, { run: Verb; takes: VerbOptions }> = {
  list: { run: list, takes: { list: true } },
  show: { run: show, takes: {} },
  create: { run: create, takes: { body: true, fields: 'all' } },
  update: { run: update, takes: { body: true, fields: 'all' } },
  delete: { run: remove, takes: { cascade: true } },
};

/** POST /<collection>/<id>/<action>, showing the answer (an edge router's new enrollment token). */
async function runAction(ctx: AdminContext, resource: Resource, actionName: string): Promise<void> {
  const action = resource.actions![actionName]!;
  const target = targetOf(ctx.args);
  const { entity, answer } = await withManagementApi(ctx, async (api) => {
    const entity = await api.resolve(resource.collection, target, resource.singular);
    return { entity, answer: await api.post([resource.collection, entity.id, action.path]) };
  });
  if (ctx.args.json) return ctx.print(json(answer));
  ctx.print(`${label(resource, entity)}: ${action.summary}.`);
  const { id: _id, _links, ...shown } = answer;
  ctx.print(fieldLines(shown));
}

export async function resourceCommand(ctx: AdminContext, resource: Resource): Promise<ExitCode> {
  const { verb } = ctx.args;
  const extra = resource.extraVerbs?.find((v) => v === verb);
  const known = extra ? EXTRA_VERBS[extra] : VERBS[verb];
  const action = resource.actions?.[verb];
  if (!known && !action) {
    const verbs = [
      ...Object.keys(VERBS),
      ...(resource.extraVerbs ?? []),
      ...Object.keys(resource.actions ?? {}),
    ].join(', ');
    throw new UsageError(
      verb
        ? `unknown verb '${verb}' for ${resource.noun}; use ${verbs}`
        : `${resource.noun} needs a verb: ${verbs}`,
    );
  }
  const takes = known?.takes ?? {};
  refuseOptionsOutside(ctx.args, resource.expires && takes.body ? { ...takes, expiresIn: true } : takes);
  if (known) await known.run(ctx, resource);
  else await runAction(ctx, resource, verb);
  return EXIT.ok;
}
