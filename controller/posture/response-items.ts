/**
 * Validation of posture responses (`POST /posture-response`, `/posture-response-bulk`). Every item is checked
 * before anything is stored, and every problem is named the way the API reports fields, prefixed with the
 * item's index in a bulk request (`[2].macAddresses[0]`), so a client can tell exactly which answer was wrong.
 *
 * Wire types follow OpenZiti's `postureResponseCreate`: OS, MAC, DOMAIN, PROCESS (which also answers
 * PROCESS_MULTI, one item per path) and ENDPOINT_STATE; then Postern's described types that have a reported
 * fact (DISK_ENCRYPTION, FIREWALL, SCREEN_LOCK, ...), each validated against its descriptor's fact schema.
 * MFA state never comes from here (it is TOTP).
 */
// The caps are published with the wire contract's schemas (src/api/resources/posture-responses.ts).
import { MAX_BULK_ITEMS, RESPONSE_TEXT_LIMITS } from '../../src/api/resources/posture-responses.js';
import { Value } from '@sinclair/typebox/value';
import type { TObject, TSchema } from '@sinclair/typebox';
import { FACT_TYPE_DESCRIPTORS, type PostureTypeDescriptor } from '../../src/api/posture-types/index.js';
import { schemaInWords } from '../../src/api/posture-types/schema-words.js';
import { at } from '../field-path.js';
import { isRecord, kindOf, normaliseHex, parseList } from './checks/normalise.js';
import type { DescribedCheckType, FieldProblem } from '../posture-model.js';

const OPENZITI_RESPONSE_TYPES = ['OS', 'MAC', 'DOMAIN', 'PROCESS', 'ENDPOINT_STATE'] as const;
export const RESPONSE_TYPES: readonly string[] = [
  ...OPENZITI_RESPONSE_TYPES,
  ...FACT_TYPE_DESCRIPTORS.map((d) => d.id),
];

const MAX_TEXT = 1024;
const MAX_PATH = RESPONSE_TEXT_LIMITS.path;
const MAX_LIST = 256;

export { MAX_BULK_ITEMS, RESPONSE_TEXT_LIMITS };

export type ResponseItem =
  | { typeId: 'OS'; id: string; type: string; version: string; build: string | null }
  | { typeId: 'MAC'; id: string; macAddresses: string[] }
  | { typeId: 'DOMAIN'; id: string; domain: string }
  | {
      typeId: 'PROCESS';
      id: string;
      path: string;
      isRunning: boolean;
      hash: string;
      signerFingerprints: string[];
    }
  | { typeId: 'ENDPOINT_STATE'; id: string; woken: boolean; unlocked: boolean }
  | ReportedFactItem;

/** A described type's fact: its schema's fields only, as the agent sent them (null: could not be read). */
export interface ReportedFactItem {
  typeId: DescribedCheckType;
  id: string;
  fact: Record<string, unknown>;
}

class ItemReader {
  constructor(
    private readonly body: Record<string, unknown>,
    private readonly prefix: string,
    readonly problems: FieldProblem[],
  ) {}

  field(key: string): string {
    return at(this.prefix, key);
  }

  text(
    key: string,
    opts: { required: boolean; nonEmpty?: boolean; max?: number; nullable?: boolean },
  ): string | null {
    const value = this.body[key];
    if ((value === undefined || (value === null && opts.nullable)) && !opts.required)
      return opts.nullable ? null : '';
    const max = opts.max ?? MAX_TEXT;
    if (typeof value !== 'string' || (opts.nonEmpty && value.trim() === '') || value.length > max) {
      const reason =
        value === undefined
          ? 'is required'
          : `must be ${opts.nonEmpty ? 'a non-empty' : 'a'} string of at most ${max} characters, got ${kindOf(value)}`;
      this.problems.push({ field: this.field(key), reason, value });
      return null;
    }
    return value;
  }

  flag(key: string, required: boolean): boolean {
    const value = this.body[key];
    if (value === undefined && !required) return false;
    if (typeof value === 'boolean') return value;
    this.problems.push({
      field: this.field(key),
      reason: value === undefined ? 'is required' : `must be true or false, got ${kindOf(value)}`,
      value,
    });
    return false;
  }

  /** A list of hex digests or addresses, stored the way they are compared: lower-case hex, no separators. */
  hexList(key: string, required: boolean, accept: (hex: string) => boolean, what: string): string[] {
    const value = this.body[key];
    if ((value === undefined || value === null) && !required) return [];
    if (Array.isArray(value) && value.length > MAX_LIST) {
      this.problems.push({
        field: this.field(key),
        reason: `must list at most ${MAX_LIST} entries`,
        value: value.length,
      });
      return [];
    }
    const list = parseList(value, this.field(key), this.problems, false, (v, f) => {
      const hex =
        typeof v === 'string' && v.length <= RESPONSE_TEXT_LIMITS.hexEntry && /^[0-9a-fA-F:.\- ]*$/.test(v)
          ? normaliseHex(v)
          : undefined;
      if (hex !== undefined && accept(hex)) return hex;
      this.problems.push({ field: f, reason: `must be ${what}`, value: v });
      return undefined;
    });
    return [...new Set(list ?? [])];
  }
}

const isMac = (hex: string) => hex.length === 12 || hex.length === 16 || hex.length === 40;
/** sha256 (Postern's agent) or sha512 (OpenZiti's C SDK) */
const isBinaryHash = (hex: string) => hex.length === 64 || hex.length === 128;
const isSha1 = (hex: string) => hex.length === 40;

/** One item at `prefix` ('' for a single response, `[i]` in a bulk one); undefined when it had problems. */
export function parseResponseItem(
  value: unknown,
  prefix: string,
  problems: FieldProblem[],
): ResponseItem | undefined {
  if (!isRecord(value)) {
    problems.push({
      field: prefix || 'body',
      reason: `must be a posture response object, got ${kindOf(value)}`,
      value,
    });
    return undefined;
  }
  const before = problems.length;
  const r = new ItemReader(value, prefix, problems);
  const typeId = value.typeId;
  if (typeof typeId !== 'string' || !RESPONSE_TYPES.includes(typeId)) {
    problems.push({
      field: r.field('typeId'),
      reason: `must be one of ${RESPONSE_TYPES.join(', ')}`,
      value: typeId,
    });
    return undefined;
  }
  const id = r.text('id', { required: true, nonEmpty: true, max: RESPONSE_TEXT_LIMITS.id }) ?? '';
  const described = FACT_TYPE_DESCRIPTORS.find((d) => d.id === typeId);
  if (described) {
    const fact = parseFact(described, value, r);
    return problems.length === before ? { typeId: typeId as DescribedCheckType, id, fact } : undefined;
  }
  let item: ResponseItem;
  switch (typeId as (typeof OPENZITI_RESPONSE_TYPES)[number]) {
    case 'OS': {
      const type = r.text('type', { required: true, nonEmpty: true, max: RESPONSE_TEXT_LIMITS.osType }) ?? '';
      const version = r.text('version', { required: true, max: RESPONSE_TEXT_LIMITS.osVersion }) ?? '';
      const build = r.text('build', { required: false, nullable: true, max: RESPONSE_TEXT_LIMITS.osBuild });
      item = {
        typeId: 'OS',
        id,
        type: type.trim(),
        version: version.trim(),
        build: build === null || build.trim() === '' ? null : build.trim(),
      };
      break;
    }
    case 'MAC':
      item = {
        typeId: 'MAC',
        id,
        macAddresses: r.hexList('macAddresses', true, isMac, 'a MAC address such as aa:bb:cc:dd:ee:ff'),
      };
      break;
    case 'DOMAIN':
      item = {
        typeId: 'DOMAIN',
        id,
        domain: (r.text('domain', { required: true, max: RESPONSE_TEXT_LIMITS.domain }) ?? '').trim(),
      };
      break;
    case 'PROCESS': {
      const path = r.text('path', { required: true, nonEmpty: true, max: MAX_PATH }) ?? '';
      // Left out means not running, as OpenZiti reads it.
      const isRunning = r.flag('isRunning', false);
      const rawHash = r.text('hash', { required: false, nullable: true, max: RESPONSE_TEXT_LIMITS.hash });
      const hash = rawHash === null ? '' : normaliseHex(rawHash);
      if (
        rawHash !== null &&
        rawHash !== '' &&
        (!/^[0-9a-fA-F:\- ]+$/.test(rawHash) || !isBinaryHash(hash))
      ) {
        problems.push({
          field: r.field('hash'),
          reason: 'must be a sha256 or sha512 hash: 64 or 128 hex characters, or empty',
          value: rawHash,
        });
      }
      const signerFingerprints = r.hexList(
        'signerFingerprints',
        false,
        isSha1,
        'a sha1 certificate thumbprint: 40 hex characters',
      );
      item = { typeId: 'PROCESS', id, path, isRunning, hash, signerFingerprints };
      break;
    }
    case 'ENDPOINT_STATE':
      item = {
        typeId: 'ENDPOINT_STATE',
        id,
        woken: r.flag('woken', false),
        unlocked: r.flag('unlocked', false),
      };
      break;
  }
  return problems.length === before ? item : undefined;
}

/**
 * A described type's fact fields, each checked against its schema in the descriptor (`[2].idleMinutes`); fields
 * the schema does not name are dropped, so nothing else is stored.
 */
function parseFact(
  descriptor: PostureTypeDescriptor,
  body: Record<string, unknown>,
  r: ItemReader,
): Record<string, unknown> {
  const schema = descriptor.fact!.schema as TObject;
  const required = new Set(schema.required ?? []);
  const fact: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.properties) as [string, TSchema][]) {
    const value = body[key];
    if (value === undefined) {
      if (required.has(key)) r.problems.push({ field: r.field(key), reason: 'is required' });
      continue;
    }
    if (!Value.Check(field, value)) {
      r.problems.push({ field: r.field(key), reason: `must be ${schemaInWords(field)}`, value });
      continue;
    }
    fact[key] = value;
  }
  return fact;
}

/** All items, or every problem found; `indexed` names fields with the item's index (bulk). */
export function parseResponses(
  values: readonly unknown[],
  indexed: boolean,
): { ok: true; items: ResponseItem[] } | { ok: false; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const items: ResponseItem[] = [];
  values.forEach((value, i) => {
    const item = parseResponseItem(value, indexed ? `[${i}]` : '', problems);
    if (item) items.push(item);
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, items };
}
