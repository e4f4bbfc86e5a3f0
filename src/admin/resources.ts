/**
 * The admin CLI's nouns as data: which management collection each one is, the columns of its table, which
 * command-line flags set which body fields, and what a create needs by default. The verbs
 * (resource-commands.ts) are written once against this table, so a new collection is one entry here.
 */
import {
  EXCEPTION_COLUMNS,
  completeEnforcement,
  completeException,
  enforcementColumn,
} from './rollout-fields.js';

/** An entity as the management API shows it: `id`, `name` and whatever else its collection has. */
export type Entity = Record<string, unknown> & { id: string; name?: string };

/** Flags that set one body field of a create or update; `multiple` ones may repeat and make a list. */
export const FIELD_FLAGS = {
  role: { type: 'string', multiple: true },
  type: { type: 'string', multiple: false },
  semantic: { type: 'string', multiple: false },
  admin: { type: 'boolean', multiple: false },
  'identity-role': { type: 'string', multiple: true },
  'service-role': { type: 'string', multiple: true },
  'posture-check-role': { type: 'string', multiple: true },
  'router-role': { type: 'string', multiple: true },
  config: { type: 'string', multiple: true },
  ott: { type: 'boolean', multiple: false },
  updb: { type: 'string', multiple: false },
  'enforcement-mode': { type: 'string', multiple: false },
  'enforce-from': { type: 'string', multiple: false },
  identity: { type: 'string', multiple: false },
  check: { type: 'string', multiple: false },
  'all-checks': { type: 'boolean', multiple: false },
  'expires-at': { type: 'string', multiple: false },
  reason: { type: 'string', multiple: false },
} as const;
export type FieldFlag = keyof typeof FIELD_FLAGS;

export interface Column {
  header: string;
  /** `names`: the names of the entities the page references by id (`namedRefs`), for showing names */
  value(entity: Entity, names: ReadonlyMap<string, string>): string;
}

/** An extra verb that POSTs to `/<collection>/<id>/<path>` and shows the answer (a router's new token). */
export interface EntityAction {
  path: string;
  summary: string;
}

/** A flag whose value is an id or name of another collection; the body gets the id. */
export interface EntityRefFlag {
  collection: string;
  singular: string;
}

/** What a noun's `complete` sees besides the body: the flags given, whether it is a create, and now. */
export interface BodyContext {
  fields: Partial<Record<FieldFlag, string | string[] | boolean>>;
  expiresInMs: number | undefined;
  create: boolean;
  now: Date;
}

/** Verbs some nouns add (rollout-commands.ts). */
export type ExtraVerb = 'preview' | 'history';

export interface Resource {
  /** the noun as typed first, and what the API calls the collection */
  noun: string;
  collection: string;
  aliases: readonly string[];
  /** for messages: "identity 'alice'" */
  singular: string;
  columns: readonly Column[];
  /** flag → body field (a dotted path sets a nested field) */
  fieldFlags: Partial<Record<FieldFlag, string>>;
  /** what a create sends for the fields the API requires when neither a flag nor --data gave them */
  createDefaults?: Record<string, unknown>;
  actions?: Record<string, EntityAction>;
  /** fields holding another collection's entity id, whose names a table shows (looked up per page) */
  namedRefs?: Readonly<Record<string, string>>;
  /** flags naming an entity of another collection by id or name (resolved before sending) */
  refs?: Partial<Record<FieldFlag, EntityRefFlag>>;
  /** the rules the flags imply beyond setting one field each; throws a UsageError for what cannot be sent */
  complete?: (body: Record<string, unknown>, context: BodyContext) => void;
  extraVerbs?: readonly ExtraVerb[];
  /** no name of its own: tables start with the id */
  unnamed?: boolean;
  /** create and update take `--expires-in` (an exception's expiry, from now) */
  expires?: boolean;
}

const text = (header: string, field: string): Column => ({
  header,
  value: (e) => (e[field] === undefined || e[field] === null ? '' : String(e[field])),
});
const yesNo = (header: string, field: string): Column => ({
  header,
  value: (e) => (e[field] ? 'yes' : 'no'),
});
const list = (header: string, field: string): Column => ({
  header,
  value: (e) => (Array.isArray(e[field]) ? (e[field] as unknown[]).join(', ') : ''),
});
/** A policy's roles with `@id` shown as `@name` (the API's `…Display`). */
const roles = (header: string, field: string): Column => ({
  header,
  value: (e, names) => {
    const shown = e[`${field}Display`];
    if (!Array.isArray(shown)) return list(header, field).value(e, names);
    return shown.map((r: { name?: string; role?: string }) => r.name ?? r.role ?? '').join(', ');
  },
});
const refName = (header: string, field: string): Column => ({
  header,
  value: (e) => String((e[field] as { name?: unknown } | undefined)?.name ?? ''),
});

const ATTRIBUTES = list('ROLES', 'roleAttributes');

export const RESOURCES: readonly Resource[] = [
  {
    noun: 'identities',
    collection: 'identities',
    aliases: ['identity'],
    singular: 'identity',
    columns: [text('TYPE', 'typeId'), yesNo('ADMIN', 'isAdmin'), yesNo('MFA', 'isMfaEnabled'), ATTRIBUTES],
    fieldFlags: {
      role: 'roleAttributes',
      type: 'type',
      admin: 'isAdmin',
      ott: 'enrollment.ott',
      updb: 'enrollment.updb',
    },
    createDefaults: { type: 'User', isAdmin: false },
  },
  {
    noun: 'services',
    collection: 'services',
    aliases: ['service'],
    singular: 'service',
    columns: [ATTRIBUTES, list('CONFIGS', 'configs')],
    fieldFlags: { role: 'roleAttributes', config: 'configs' },
  },
  {
    noun: 'policies',
    collection: 'service-policies',
    aliases: ['policy', 'service-policies'],
    singular: 'service policy',
    columns: [
      text('TYPE', 'type'),
      text('SEMANTIC', 'semantic'),
      roles('IDENTITIES', 'identityRoles'),
      roles('SERVICES', 'serviceRoles'),
      roles('POSTURE CHECKS', 'postureCheckRoles'),
    ],
    fieldFlags: {
      type: 'type',
      semantic: 'semantic',
      'identity-role': 'identityRoles',
      'service-role': 'serviceRoles',
      'posture-check-role': 'postureCheckRoles',
    },
    createDefaults: { type: 'Dial', semantic: 'AllOf' },
    extraVerbs: ['preview'],
  },
  {
    noun: 'posture-checks',
    collection: 'posture-checks',
    aliases: ['posture-check', 'checks'],
    singular: 'posture check',
    columns: [text('TYPE', 'typeId'), ATTRIBUTES, enforcementColumn],
    fieldFlags: {
      type: 'typeId',
      role: 'roleAttributes',
      'enforcement-mode': 'enforcement.mode',
      'enforce-from': 'enforcement.enforceFrom',
    },
    complete: completeEnforcement,
    extraVerbs: ['preview'],
  },
  {
    noun: 'posture-check-exceptions',
    collection: 'posture-check-exceptions',
    aliases: ['posture-check-exception', 'exceptions', 'exception'],
    singular: 'posture check exception',
    unnamed: true,
    columns: EXCEPTION_COLUMNS,
    namedRefs: { identityId: 'identities', postureCheckId: 'posture-checks' },
    fieldFlags: {
      identity: 'identityId',
      'identity-role': 'identityRoles',
      check: 'postureCheckId',
      'all-checks': 'postureCheckId',
      'expires-at': 'expiresAt',
      reason: 'reason',
    },
    refs: {
      identity: { collection: 'identities', singular: 'identity' },
      check: { collection: 'posture-checks', singular: 'posture check' },
    },
    complete: completeException,
    expires: true,
    extraVerbs: ['history'],
  },
  {
    noun: 'configs',
    collection: 'configs',
    aliases: ['config'],
    singular: 'config',
    columns: [refName('TYPE', 'configType')],
    fieldFlags: { type: 'configTypeId' },
  },
  {
    noun: 'config-types',
    collection: 'config-types',
    aliases: ['config-type'],
    singular: 'config type',
    columns: [text('TARGET', 'target')],
    fieldFlags: {},
  },
  {
    noun: 'routers',
    collection: 'edge-routers',
    aliases: ['router', 'edge-routers'],
    singular: 'edge router',
    columns: [yesNo('ONLINE', 'isOnline'), yesNo('ENROLLED', 'isVerified'), ATTRIBUTES],
    fieldFlags: { role: 'roleAttributes' },
    actions: {
      're-enroll': {
        path: 're-enroll',
        summary: 'a new one-time enrollment token; the router must enroll again',
      },
    },
  },
  {
    noun: 'edge-router-policies',
    collection: 'edge-router-policies',
    aliases: ['edge-router-policy', 'router-policies'],
    singular: 'edge router policy',
    columns: [
      text('SEMANTIC', 'semantic'),
      roles('IDENTITIES', 'identityRoles'),
      roles('ROUTERS', 'edgeRouterRoles'),
    ],
    fieldFlags: { semantic: 'semantic', 'identity-role': 'identityRoles', 'router-role': 'edgeRouterRoles' },
  },
  {
    noun: 'service-edge-router-policies',
    collection: 'service-edge-router-policies',
    aliases: ['service-edge-router-policy', 'service-router-policies'],
    singular: 'service edge router policy',
    columns: [
      text('SEMANTIC', 'semantic'),
      roles('SERVICES', 'serviceRoles'),
      roles('ROUTERS', 'edgeRouterRoles'),
    ],
    fieldFlags: { semantic: 'semantic', 'service-role': 'serviceRoles', 'router-role': 'edgeRouterRoles' },
  },
  {
    // Logins: a password (`updb`) or an enrolled certificate (`cert`). Deleting a certificate login lets the
    // identity enroll again (`enroll reissue`), as a lost or re-imaged device needs.
    noun: 'authenticators',
    collection: 'authenticators',
    aliases: ['authenticator', 'logins'],
    singular: 'authenticator',
    columns: [
      text('METHOD', 'method'),
      refName('IDENTITY', 'identity'),
      text('USERNAME', 'username'),
      text('FINGERPRINT', 'fingerprint'),
    ],
    fieldFlags: {},
  },
];

export function findResource(noun: string): Resource | undefined {
  return RESOURCES.find((r) => r.noun === noun || r.aliases.includes(noun));
}

export const IDENTITIES = findResource('identities')!;
