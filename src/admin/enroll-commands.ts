/**
 * `enroll show <identity>` and `enroll reissue <identity>`, over OpenZiti's enrollment model: an identity's
 * `enrollment` field holds its outstanding enrollments by method (`ott`, `updb`, `ottca`; each with id,
 * token, jwt, expiresAt); `POST /enrollments/<id>/refresh` gives an outstanding one a new token and expiry,
 * `POST /enrollments` creates one. A controller without `/enrollments` is said to be one, in a line, rather
 * than shown as an identity without enrollments.
 */
import { MANAGEMENT_API_PREFIX } from '../api/paths.js';
import { UsageError } from '../agent/cli/cli-args.js';
import { CliError, EXIT, type ExitCode } from '../agent/cli/cli-errors.js';
import { isControllerError } from '../controller-client/controller-error.js';
import { refuseOptionsOutside, targetOf } from './admin-args.js';
import { withManagementApi, type AdminContext } from './admin-session.js';
import type { ManagementApi } from './management-api.js';
import { fieldLines, json } from './output.js';
import { IDENTITIES, type Entity } from './resources.js';

const METHODS = ['ott', 'updb', 'ottca'] as const;
type Method = (typeof METHODS)[number];
interface Outstanding {
  id?: string;
  token?: string;
  jwt?: string;
  expiresAt?: string;
}
type Enrollments = Partial<Record<Method, Outstanding>>;

async function requireEnrollmentSupport(api: ManagementApi): Promise<void> {
  try {
    await api.list('enrollments', { limit: 1 });
  } catch (error) {
    if (isControllerError(error) && error.status === 404)
      throw new CliError(
        `this controller does not support enrollments (it has no ${MANAGEMENT_API_PREFIX}/enrollments)`,
      );
    throw error;
  }
}

function enrollmentsOf(identity: Entity): Enrollments {
  const field = identity.enrollment;
  if (typeof field !== 'object' || field === null) return {};
  const all = field as Record<string, Outstanding | null>;
  return Object.fromEntries(METHODS.flatMap((m) => (all[m] ? [[m, all[m]]] : [])));
}

const named = (identity: Entity) => `identity '${String(identity.name ?? identity.id)}' (${identity.id})`;

async function show(ctx: AdminContext): Promise<void> {
  refuseOptionsOutside(ctx.args, {});
  const target = targetOf(ctx.args, 'an identity id or name');
  const identity = await withManagementApi(ctx, async (api) => {
    await requireEnrollmentSupport(api);
    return api.resolve(IDENTITIES.collection, target, IDENTITIES.singular);
  });
  const enrollments = enrollmentsOf(identity);
  if (ctx.args.json) return ctx.print(json(enrollments));
  const methods = Object.keys(enrollments) as Method[];
  if (methods.length === 0) return ctx.print(`The ${named(identity)} has no outstanding enrollment.`);
  ctx.print(methods.map((m) => fieldLines({ method: m, ...enrollments[m] })).join('\n\n'));
}

/** The method asked for, else the one outstanding, else a one-time token. */
function methodFor(ctx: AdminContext, outstanding: Enrollments): Method {
  const { ott, updb } = ctx.args.fields;
  if (ott && updb) throw new UsageError('give --ott or --updb USERNAME, not both');
  if (updb) return 'updb';
  if (ott) return 'ott';
  return outstanding.ott ? 'ott' : outstanding.updb ? 'updb' : 'ott';
}

async function reissue(ctx: AdminContext): Promise<void> {
  refuseOptionsOutside(ctx.args, { expiresIn: true, fields: ['ott', 'updb'] });
  const target = targetOf(ctx.args, 'an identity id or name');
  // Without --expires-in the controller's own lifetime (its --enrollment-ttl) applies, not one of ours.
  const expiry =
    ctx.args.expiresInMs === undefined
      ? {}
      : { expiresAt: new Date(Date.now() + ctx.args.expiresInMs).toISOString() };
  const { identity, method, enrollment } = await withManagementApi(ctx, async (api) => {
    await requireEnrollmentSupport(api);
    const identity = await api.resolve(IDENTITIES.collection, target, IDENTITIES.singular);
    const method = methodFor(ctx, enrollmentsOf(identity));
    const outstanding = enrollmentsOf(identity)[method];
    if (outstanding?.id) {
      if (ctx.args.fields.updb)
        throw new UsageError(
          'an updb enrollment is outstanding: reissue refreshes it with its username; leave out the USERNAME',
        );
      await api.post(['enrollments', outstanding.id, 'refresh'], expiry);
    } else {
      const username = ctx.args.fields.updb;
      try {
        await api.create('enrollments', {
          method,
          identityId: identity.id,
          ...expiry,
          ...(method === 'updb' ? { username } : {}),
        });
      } catch (error) {
        if (isControllerError(error, 'IDENTITY_ALREADY_ENROLLED')) throw alreadyEnrolled(identity, method);
        throw error;
      }
    }
    const reissued = enrollmentsOf(await api.get(IDENTITIES.collection, identity.id))[method];
    if (!reissued)
      throw new CliError(`the controller took the ${method} enrollment, but the identity shows none`);
    return { identity, method, enrollment: reissued };
  });
  if (ctx.args.json) return ctx.print(json({ method, ...enrollment }));
  ctx.print(`New ${method} enrollment for the ${named(identity)}:`);
  ctx.print(fieldLines({ method, ...enrollment }));
}

/** The login the new enrollment would add exists: say which, and the command that removes it. */
function alreadyEnrolled(identity: Entity, method: Method): CliError {
  const kind = method === 'ott' ? 'cert' : 'updb';
  const login = (identity.authenticators as Record<string, { id?: string }> | undefined)?.[kind];
  const what = kind === 'cert' ? 'a certificate login (an enrolled device)' : 'a password login';
  return new CliError(
    `the ${named(identity)} already has ${what}; to enroll it again, remove that first: ` +
      `npm run admin -- authenticators delete ${login?.id ?? '<authenticator id>'}`,
  );
}

const VERBS: Record<string, (ctx: AdminContext) => Promise<void>> = { show, reissue };

export async function enrollCommand(ctx: AdminContext): Promise<ExitCode> {
  const verb = VERBS[ctx.args.verb];
  if (!verb)
    throw new UsageError(
      ctx.args.verb
        ? `unknown verb '${ctx.args.verb}' for enroll; use show, reissue`
        : 'enroll needs a verb: show, reissue',
    );
  await verb(ctx);
  return EXIT.ok;
}
