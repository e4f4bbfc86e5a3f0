/** The admin CLI's command line: `<noun> <verb> [words]` and the options, read once with node:util parseArgs. */
import {
  SHARED_OPTIONS,
  credentialStoreOf,
  fingerprintArg,
  parseOptions,
  UsageError,
  type CredentialStoreKind,
} from '../agent/cli/cli-args.js';
import { FIELD_FLAGS, type FieldFlag } from './resources.js';
import {
  CHECK_OPTION_FLAGS,
  CHECK_OPTION_PARSE,
  checkOptionValue,
  postureCheckTypesHelp,
} from './check-option-flags.js';
import { POSTURE_CHECK_TYPES } from '../api/resources/vocabulary.js';
import { controllerCaFile } from '../common/controller-ca-option.js';

export const USAGE = `Usage: postern-admin <noun> <verb> [arguments] [options]
       npm run admin -- <noun> <verb> [arguments] [options]

Nouns: identities, services, policies (service policies), posture-checks, posture-check-exceptions
(exceptions), configs, config-types, routers (edge routers), edge-router-policies,
service-edge-router-policies, webhooks; each takes the verbs
  list [--filter EXPR] [--limit N] [--offset N]
                        a table (or --json); EXPR is the controller's filter grammar, passed as is
  show <id-or-name>     every field of one entity
  create [NAME] [--data JSON | --file F] [field flags]
  update <id-or-name> [--data JSON | --file F] [field flags]
                        changes only the fields given (PATCH)
  delete <id-or-name> [--cascade]
                        --cascade also removes it from the service policies that name it
  routers re-enroll <id-or-name>
                        a new one-time enrollment token for the router
  posture-checks preview create [NAME] [body], preview update <id-or-name> [body],
  preview delete <id-or-name>   (policies too)
                        what the change would do to access, changing nothing: who would newly be
                        refused which service and why, who newly let in
  exceptions history <id>
                        every grant, change, deletion and expiry of an exception, with who did it
  webhooks deliveries [<id-or-name>] [--state pending|delivered|dead] [--limit N] [--offset N]
                        one webhook's deliveries, or every one's; --state dead is the dead-letter list
  webhooks redeliver <delivery-id>
                        queue a dead (or delivered) delivery again
  webhooks syslog       the syslog export's status (connected, pending, buffer, last error)

  enroll show <identity>
                        the identity's outstanding enrollment (method, token, expiry)
  enroll reissue <identity> [--ott | --updb USERNAME] [--expires-in 24h]
                        a new token: refreshes the outstanding enrollment, or creates one
  audit list [--identity I] [--service S] [--actor A] [--type T] [--since W] [--until W]
             [--reference R] [--filter EXPR] [--limit N] [--offset N] [--follow]
                        the audit trail, newest last; I, S, A by name or id; T a type, a list
                        (access.refused,access.granted) or a prefix (access.*); W an RFC 3339 time or
                        how long ago (90s, 30m, 2h, 1d, 1w); --follow prints new events as they come
                        (every 2 s) until Ctrl-C
  audit export --format jsonl|csv [the same filters] [--output FILE]
                        every matching event, oldest first, to FILE or standard output
  login                 sign in and keep the session (keychain, else a 0600 file) for later commands
  logout                end the kept session

Field flags (for create and update; each noun takes the ones that fit it):
  --role R              roleAttributes (repeat for more): identities, services, posture-checks, routers
  --type T              identities: type (default User); policies: Dial or Bind (default Dial);
                        posture-checks: typeId (${POSTURE_CHECK_TYPES.join(', ')});
                        configs: configTypeId (e.g. intercept.v1, host.v1)
  --admin               identities: isAdmin
  --ott, --updb USERNAME
                        identities: create with an enrollment of that method
  --semantic S          policies: AllOf or AnyOf
  --identity-role R, --service-role R, --posture-check-role R, --router-role R
                        policies: identityRoles, serviceRoles, postureCheckRoles, edgeRouterRoles
                        (#attribute, @id-or-name, #all; repeat for more)
  --config C            services: a config id or name (repeat for more)
  --enforcement-mode M  posture-checks: enforce (default), report-only or warn
  --enforce-from T      posture-checks: when a warning starts to refuse (RFC 3339, e.g.
                        2026-03-03T09:00:00+01:00); alone, it sets --enforcement-mode warn
  --identity I, --identity-role R
                        exceptions: one identity (id or name), or roles (#attribute, @id-or-name)
  --check C, --all-checks
                        exceptions: one posture check (id or name), or every check; one is required
  --expires-in D, --expires-at T
                        exceptions: 7d, 24h… from now, or an RFC 3339 time (default: 7 days; the
                        controller allows at most 90 days unless configured otherwise)
  --reason TEXT         exceptions: why (required)
  --url URL             webhooks: where events are POSTed (https://; plain http only to loopback)
  --event-type T        webhooks: an event type to deliver (repeat for more; default * = every type)
  --secret-file F, --secret S
                        webhooks: the signing secret (16 to 256 characters), from file F (- for standard
                        input; a final newline is dropped) or given as is (visible to other users in the
                        process list: prefer --secret-file); never shown back
  --data JSON           the request body (flags and NAME are set over it); --file F reads it from F
                        (- for standard input)

${postureCheckTypesHelp()}

Options:
  --controller URL      controller address (or POSTERN_CONTROLLER_URL; after login, the kept session's)
  --controller-ca FILE  PEM CA bundle to trust for the controller's TLS certificate
                        (--ca is the old spelling, still accepted)
  --controller-fingerprint FP
                        pin the controller's self-signed certificate by its SHA-256 fingerprint
  --insecure            allow plain http:// to a controller that is not on this machine (credentials in clear)
  --credential-store S  where login keeps the session: keyring (default; a 0600 file where there is no
                        keychain), file, or memory (keeps nothing) (or POSTERN_CREDENTIAL_STORE)
  --config-dir DIR      the folder of the file store (or POSTERN_CONFIG_DIR)
  --json                machine-readable output on standard output
  --help                this text

Sign-in: POSTERN_ADMIN_USERNAME and POSTERN_ADMIN_PASSWORD, else asked for (the password hidden);
POSTERN_TOTP_CODE, else asked for, when the administrator's login owes an authenticator code. Without a kept
session each command signs in and ends its session when it is done.

Exit codes: 0 ok, 1 error (the controller refused, naming the field), 2 usage, 3 controller unreachable,
4 not signed in or bad credentials, 5 authenticator code missing or refused.
Every noun and verb with examples: docs/ADMIN-CLI.md`;

/** How to reach and trust the controller, and where a kept session lives. */
export interface ConnectionArgs {
  controller?: string;
  ca?: string;
  controllerFingerprint?: string;
  insecure: boolean;
  credentialStore?: CredentialStoreKind;
  configDir?: string;
}

export interface AdminArgs {
  noun: string;
  verb: string;
  words: string[];
  connection: ConnectionArgs;
  json: boolean;
  help: boolean;
  list: { filter?: string; limit?: number; offset?: number };
  /** `audit list` and `audit export` (with `--identity` and `--type` among the field flags) */
  audit: AuditArgs;
  body: { data?: string; file?: string };
  /** the field flags given, as parsed (string, string[] or true) */
  fields: Partial<Record<FieldFlag, string | string[] | boolean>>;
  /** posture checks: the type's own fields given by their flags (check-option-flags.ts), by field name */
  checkOptions: Record<string, unknown>;
  cascade: boolean;
  /** `webhooks deliveries --state`: pending, delivered or dead */
  state?: string;
  /** `enroll reissue --expires-in`: milliseconds */
  expiresInMs?: number;
}

export interface AuditArgs {
  service?: string;
  actor?: string;
  since?: string;
  until?: string;
  reference?: string;
  follow: boolean;
  format?: string;
  output?: string;
}

const fieldOptions = Object.fromEntries(
  Object.entries(FIELD_FLAGS).map(([flag, spec]) => [flag, { type: spec.type, multiple: spec.multiple }]),
) as Record<FieldFlag, { type: 'string' | 'boolean'; multiple: boolean }>;

const OPTIONS = {
  ...SHARED_OPTIONS,
  filter: { type: 'string' },
  limit: { type: 'string' },
  offset: { type: 'string' },
  data: { type: 'string' },
  file: { type: 'string' },
  cascade: { type: 'boolean', default: false },
  'expires-in': { type: 'string' },
  state: { type: 'string' },
  service: { type: 'string' },
  actor: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  reference: { type: 'string' },
  follow: { type: 'boolean', default: false },
  format: { type: 'string' },
  output: { type: 'string' },
  ...fieldOptions,
} as const;

const ALL_OPTIONS = { ...CHECK_OPTION_PARSE, ...OPTIONS };

export function parseAdminArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): AdminArgs {
  const parsed = parseOptions(argv, ALL_OPTIONS);
  const { values, positionals } = parsed as unknown as ReturnType<typeof parseOptions<typeof OPTIONS>>;
  const given = parsed.values as Record<string, string | boolean | undefined>;
  const checkOptions: Record<string, unknown> = {};
  for (const flag of CHECK_OPTION_FLAGS) {
    const value = given[flag.flag];
    if (value !== undefined) checkOptions[flag.field] = checkOptionValue(flag, value);
  }
  const [noun = '', verb = '', ...words] = positionals;
  const store = credentialStoreOf(values['credential-store'], env);
  if (values.data !== undefined && values.file !== undefined)
    throw new UsageError('give the body with --data or --file, not both');
  const fields: AdminArgs['fields'] = {};
  for (const flag of Object.keys(FIELD_FLAGS) as FieldFlag[]) {
    const value = values[flag] as string | string[] | boolean | undefined;
    if (value !== undefined && value !== false) fields[flag] = value;
  }
  return {
    noun,
    verb,
    words,
    connection: {
      controller: values.controller ?? (env.POSTERN_CONTROLLER_URL || undefined),
      ca: controllerCaFile(values, (message) => new UsageError(message)),
      controllerFingerprint: fingerprintArg(values['controller-fingerprint']),
      insecure: values.insecure,
      credentialStore: store,
      configDir: values['config-dir'] ?? (env.POSTERN_CONFIG_DIR || undefined),
    },
    json: values.json,
    help: values.help,
    list: {
      filter: values.filter,
      limit: count('--limit', values.limit),
      offset: count('--offset', values.offset),
    },
    body: { data: values.data, file: values.file },
    audit: {
      service: values.service,
      actor: values.actor,
      since: values.since,
      until: values.until,
      reference: values.reference,
      follow: values.follow,
      format: values.format,
      output: values.output,
    },
    fields,
    checkOptions,
    cascade: values.cascade,
    state: deliveryState(values.state),
    expiresInMs: duration(values['expires-in']),
  };
}

const DELIVERY_STATES = ['pending', 'delivered', 'dead'];

function deliveryState(value: string | undefined): string | undefined {
  if (value === undefined || DELIVERY_STATES.includes(value)) return value;
  throw new UsageError(`--state must be ${DELIVERY_STATES.join(', ')}, got '${value}'`);
}

function count(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} must be a whole number, got '${value}'`);
  return Number(value);
}

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `30m`, `24h`, `7d`. */
function duration(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d+)([mhd])$/.exec(value);
  if (!m || Number(m[1]) === 0)
    throw new UsageError(
      `--expires-in must be minutes, hours or days such as 30m, 24h or 7d, got '${value}'`,
    );
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

/** The options a verb takes beyond the connection ones; any other given is refused, not silently ignored. */
export interface VerbOptions {
  list?: boolean;
  body?: boolean;
  cascade?: boolean;
  expiresIn?: boolean;
  state?: boolean;
  /** the audit flags: `list` (filters and --follow) or `export` (filters, --format, --output) */
  audit?: 'list' | 'export';
  /** field flags: every one (create, update: the noun decides), or these */
  fields?: 'all' | readonly FieldFlag[];
}

export function refuseOptionsOutside(args: AdminArgs, takes: VerbOptions): void {
  const misplaced = [
    ...(takes.list ? [] : (['filter', 'limit', 'offset'] as const).filter((k) => args.list[k] !== undefined)),
    ...(takes.body ? [] : (['data', 'file'] as const).filter((k) => args.body[k] !== undefined)),
    ...(takes.cascade || !args.cascade ? [] : ['cascade']),
    ...(takes.expiresIn || args.expiresInMs === undefined ? [] : ['expires-in']),
    ...(takes.state || args.state === undefined ? [] : ['state']),
    ...(Object.keys(args.audit) as (keyof AuditArgs)[]).filter(
      (k) => args.audit[k] !== undefined && args.audit[k] !== false && !auditTakes(takes.audit, k),
    ),
    ...(takes.fields === 'all'
      ? []
      : (Object.keys(args.fields) as FieldFlag[]).filter((f) => !takes.fields?.includes(f))),
    ...(takes.fields === 'all'
      ? []
      : CHECK_OPTION_FLAGS.filter((f) => f.field in args.checkOptions).map((f) => f.flag)),
  ];
  if (misplaced.length)
    throw new UsageError(`--${misplaced[0]} does not apply to '${`${args.noun} ${args.verb}`.trim()}'`);
}

const AUDIT_FILTERS: readonly (keyof AuditArgs)[] = ['service', 'actor', 'since', 'until', 'reference'];

function auditTakes(verb: VerbOptions['audit'], flag: keyof AuditArgs): boolean {
  if (verb === undefined) return false;
  if (AUDIT_FILTERS.includes(flag)) return true;
  return verb === 'list' ? flag === 'follow' : flag === 'format' || flag === 'output';
}

/** The one id or name a verb acts on. */
export function targetOf(args: AdminArgs, what = 'an id or name'): string {
  const [target, extra] = args.words;
  if (!target) throw new UsageError(`'${args.noun} ${args.verb}' needs ${what}`);
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
  return target;
}
