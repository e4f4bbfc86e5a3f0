/**
 * Generators of hostile requests for one documented operation (from /openapi.json): path parameters, query
 * strings, headers and bodies that are malformed, oversized, deeply nested, wrongly typed or carry
 * prototype-pollution keys.
 *
 * Bodies never validate against the operation's published request schema: object and array bodies are
 * poisoned (a typed property given a value of another type, or a required one left out) and then checked
 * with ajv configured as the controller's body validator; anything the schema accepts is discarded. So a
 * request can never be a valid write, and a store that changes anyway is the controller's fault.
 */
import fc from 'fast-check';
import { Ajv, type ValidateFunction } from 'ajv';
import { withKeywords } from '../../controller/http/validation.js';

// The controller's body validator (its formats and its own size keyword, so a body the controller would refuse
// for its size is not mistaken for a valid one): no coercion, defaults and additional properties left alone.
const ajv = withKeywords(
  new Ajv({ strict: false, allErrors: false, coerceTypes: false, useDefaults: false }),
);

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  maxItems?: number;
  maxLength?: number;
  maxProperties?: number;
  maxJsonBytes?: number;
  pattern?: string;
}

interface OperationDoc {
  parameters?: { in: string; name: string }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
}

export interface FuzzOperation {
  method: string;
  template: string;
  pathParams: string[];
  queryParams: string[];
  headerParams: string[];
  bodySchema?: JsonSchema;
  validBody?: ValidateFunction;
}

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export function operationsOf(doc: { paths: Record<string, Record<string, OperationDoc>> }): FuzzOperation[] {
  return Object.entries(doc.paths).flatMap(([template, ops]) =>
    Object.entries(ops).map(([method, op]) => {
      const params = op.parameters ?? [];
      const bodySchema = op.requestBody?.content['application/json']?.schema;
      return {
        method: method.toUpperCase(),
        template,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        headerParams: params.filter((p) => p.in === 'header').map((p) => p.name),
        bodySchema,
        validBody: bodySchema ? ajv.compile(bodySchema) : undefined,
      };
    }),
  );
}

const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', '$where', 'toString', 'hasOwnProperty'];

const hostileText = fc.constantFrom(
  '',
  ' ',
  '..',
  '../../etc/passwd',
  '%00',
  '\u0000',
  "' OR 1=1 --",
  '"; DROP TABLE identities; --',
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '#all',
  '@admin',
  'NaN',
  '-1',
  '1e309',
  '99999999999999999999999',
  'null',
  'true',
  '[]',
  '{}',
  '\u202e\u0301',
  '😀'.repeat(50),
  'x'.repeat(5000),
  '__proto__',
  'constructor',
);
const anyText = fc.oneof(
  hostileText,
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.uuid(),
);

/** Header values must be visible ASCII (or tab/space) for Node's client to send them at all. */
const headerText = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 }),
  fc.constantFrom(
    '',
    'null',
    'x'.repeat(4000),
    '000000',
    '123456',
    'AAAA-BBBB-CCCC',
    'Bearer x',
    "' OR 1=1 --",
  ),
);

/** A value of any JSON kind, including awkward ones. */
const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: 'small' },
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    2 ** 53,
    -(2 ** 63),
    '',
    'x'.repeat(70_000),
    [],
    {},
    [null],
    { '': '' },
  ),
  hostileText,
);

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // Defined, not assigned: `o['__proto__'] = v` would change the prototype instead of adding a key to the JSON.
  Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
}

/**
 * A value just past one of the schema's own limits: a string one character too long or carrying control
 * characters, a list one entry too long, a map with a key too many or a few bytes too big; inside objects
 * and lists too (`envInfo.os`, `roleAttributes[0]`).
 */
function overLimit(s: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> | undefined {
  if (!s || depth > 3) return undefined;
  const options: fc.Arbitrary<unknown>[] = [];
  if (s.maxLength !== undefined) options.push(fc.constant('x'.repeat(s.maxLength + 1)));
  if (s.pattern?.includes('Cc'))
    options.push(fc.constantFrom('bad\u0000name', 'a\u202egnp.exe', 'line\nbreak'));
  if (s.maxItems !== undefined)
    options.push(fc.constant(Array.from({ length: s.maxItems + 1 }, (_, i) => `item-${i}`)));
  if (s.maxProperties !== undefined)
    options.push(
      fc.constant(Object.fromEntries(Array.from({ length: s.maxProperties + 1 }, (_, i) => [`k${i}`, 'v']))),
    );
  if (s.maxJsonBytes !== undefined) options.push(fc.constant({ big: 'x'.repeat(s.maxJsonBytes) }));
  const inner = overLimit(s.items, depth + 1);
  if (inner) options.push(inner.map((v) => [v]));
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    const nested = overLimit(prop, depth + 1);
    if (nested) options.push(nested.map((v) => ({ [name]: v })));
  }
  return options.length ? fc.oneof(...options) : undefined;
}

/** An object with random and hostile keys, and one schema property broken or a required one missing. */
function poisonedObject(schema: JsonSchema): fc.Arbitrary<unknown> | undefined {
  const props = Object.keys(schema.properties ?? {});
  const required = schema.required ?? [];
  if (props.length === 0 && required.length === 0) return undefined;
  const filler = fc.dictionary(
    fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom(...HOSTILE_KEYS)),
    anyJson,
    { maxKeys: 4 },
  );
  const validish = fc.record(Object.fromEntries(props.map((p) => [p, anyJson])), { requiredKeys: [] });
  // The broken property: a value of any kind, or one just past that property's own limits.
  const broken = fc.constantFrom(...(props.length ? props : required)).chain((key) => {
    const over = overLimit(schema.properties?.[key]);
    return fc.tuple(fc.constant(key), over ? fc.oneof(anyJson, over) : anyJson);
  });
  return fc.tuple(filler, validish, broken, fc.boolean()).map(([extra, base, [key, wrong], dropRequired]) => {
    const body: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(extra)) setOwn(body, k, v);
    for (const [k, v] of Object.entries(base)) setOwn(body, k, v);
    if (dropRequired && required.length) delete body[required[0]!];
    else setOwn(body, key, wrong);
    return body;
  });
}

/** Bodies for `op`, as raw text, none of them a valid document for it. */
export function bodyArbitrary(op: FuzzOperation): fc.Arbitrary<string | undefined> {
  const notJson = fc.oneof(
    fc.string({ maxLength: 60 }).filter((s) => {
      try {
        JSON.parse(s);
        return false;
      } catch {
        return true;
      }
    }),
    fc.constantFrom(
      '{',
      '{"a":',
      '[1,2',
      "{'a':1}",
      '{"a":1}}',
      'NaN',
      'undefined',
      '\uFEFF{}x',
      '{"__proto__":',
      '\u0000',
    ),
  );
  const schema = op.bodySchema;
  const invalid = (v: unknown) => !op.validBody || !op.validBody(v);
  // Deep nesting: `{"a":{"a":...}}` is a valid PATCH body (unknown keys are allowed), so it is filtered too.
  const deep = fc
    .integer({ min: 50, max: 20_000 })
    .chain((depth) =>
      fc.constantFrom('['.repeat(depth) + ']'.repeat(depth), '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
    )
    .filter((text) => invalid(JSON.parse(text)));
  const oversized = fc.constant(OVERSIZED);
  const choices: fc.Arbitrary<string | undefined>[] = [fc.constant(undefined), notJson, deep, oversized];
  if (!schema) {
    choices.push(anyJson.map((v) => JSON.stringify(v)));
  } else if (schema.type === 'array') {
    const item = schema.items && poisonedObject(schema.items);
    const items = fc.array(anyJson, { maxLength: 3 });
    const poisonedItems = item ? fc.tuple(items, item).map(([a, bad]) => [...a, bad]) : items;
    const tooMany = fc.constant(
      Array.from({ length: (schema.maxItems ?? 1000) + 1 }, () => ({ typeId: 'OS' })),
    );
    choices.push(
      fc
        .oneof(poisonedItems, tooMany, anyJson)
        .filter(invalid)
        .map((v) => JSON.stringify(v)),
    );
  } else {
    const poisoned = poisonedObject(schema);
    const wrongKind = anyJson.filter((v) => typeof v !== 'object' || v === null || Array.isArray(v));
    choices.push(
      (poisoned ? fc.oneof(poisoned, wrongKind) : wrongKind).filter(invalid).map((v) => JSON.stringify(v)),
    );
  }
  return fc.oneof(...choices);
}

/** Over the 1 MiB body limit. */
const OVERSIZED = JSON.stringify({ name: 'x'.repeat(1_100_000) });

const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/xml',
  'application/octet-stream',
  'application/vnd.api+json',
  'application/json, text/plain',
  '',
];

/** Query strings: the documented parameters with hostile values, plus random parameters and repeats. */
function queryArbitrary(op: FuzzOperation): fc.Arbitrary<string> {
  const names = fc.oneof(
    ...[...op.queryParams, 'limit', 'offset', 'filter', 'method', 'sort', '__proto__'].map((n) =>
      fc.constant(n),
    ),
    fc.string({ maxLength: 8 }),
  );
  return fc.array(fc.tuple(names, anyText), { maxLength: 5 }).map((pairs) => {
    const params = new URLSearchParams();
    for (const [k, v] of pairs) params.append(k, v);
    const text = params.toString();
    return text ? `?${text}` : '';
  });
}

function pathArbitrary(op: FuzzOperation, knownIds: readonly string[]): fc.Arbitrary<string> {
  // DELETE with an existing id is a legitimate write, so only strangers' ids there.
  const ids =
    op.method !== 'DELETE' && knownIds.length ? fc.oneof(anyText, fc.constantFrom(...knownIds)) : anyText;
  // Mostly encoded (so the router sees the hostile value), sometimes raw broken escapes.
  const raw = fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '.', '..', '%2e%2e%2f', '%2F', '%C0%AF', '~');
  const segment = fc.oneof(
    {
      arbitrary: ids.chain((v) =>
        fc.constantFrom(encodeURIComponent(v), encodeURIComponent(encodeURIComponent(v))),
      ),
      weight: 4,
    },
    { arbitrary: raw, weight: 1 },
  );
  return fc
    .array(segment, { minLength: op.pathParams.length, maxLength: op.pathParams.length })
    .map((values) => {
      let path = op.template;
      op.pathParams.forEach((name, i) => (path = path.replace(`{${name}}`, values[i]!)));
      return path;
    });
}

/** Requests for `op`; `token` is the caller's zt-session (undefined: anonymous, then random tokens are tried). */
export function requestArbitrary(
  op: FuzzOperation,
  token: string | undefined,
  knownIds: readonly string[],
): fc.Arbitrary<FuzzRequest> {
  const session = token ? fc.constant(token) : fc.option(headerText, { nil: undefined });
  return fc
    .record({
      path: pathArbitrary(op, knownIds),
      query: queryArbitrary(op),
      session,
      contentType: fc.constantFrom(...CONTENT_TYPES),
      code: fc.option(headerText, { nil: undefined }),
      extra: fc.dictionary(
        fc.constantFrom(
          'x-forwarded-for',
          'accept',
          'accept-encoding',
          'origin',
          'x-request-id',
          'zt-session-x',
        ),
        headerText,
        { maxKeys: 2 },
      ),
      body: bodyArbitrary(op),
    })
    .map(({ path, query, session: zt, contentType, code, extra, body }) => {
      const headers: Record<string, string> = { ...extra };
      if (zt !== undefined) headers['zt-session'] = zt;
      if (code !== undefined) headers['mfa-validation-code'] = code;
      if (body !== undefined && contentType) headers['content-type'] = contentType;
      return { method: op.method, path: path + query, headers, body };
    });
}
