/**
 * Config data is checked against its type's JSON schema, compiled with ajv once per type and kept until the
 * type changes. A config type's own schema is compiled when it is written, so a broken schema is refused then
 * and never reaches a config.
 */
import { isIP } from 'node:net';
import { Ajv, type ValidateFunction } from 'ajv';
import type { ConfigType } from '../../model.js';
import { validationError } from '../../api-error.js';
import { pointerToField } from '../../field-path.js';
import { schemaIssueInWords } from '../../http/validation-words.js';

const ajv = new Ajv({
  allErrors: false,
  strict: false,
  strictNumbers: true,
  coerceTypes: false,
  useDefaults: false,
});
/*
 * Formats as OpenZiti's validator (gojsonschema) checks them, so a config is accepted or refused as there:
 * `ipv4`/`ipv6` are any IP Go parses holding a `.`/`:` (Go refuses zones), and a format it does not know, such
 * as `host.v1`'s `idn-hostname`, passes (declared here so ajv neither warns nor guesses).
 */
const goIp = (separator: string) => (text: string) =>
  isIP(text) !== 0 && text.includes(separator) && !text.includes('%');
ajv.addFormat('ipv4', goIp('.'));
ajv.addFormat('ipv6', goIp(':'));
ajv.addFormat('idn-hostname', true);
const compiled = new Map<string, { updatedAt: number; validate: ValidateFunction }>();

/** Compiles a schema; a schema ajv cannot compile is a 400 naming `schema`. */
export function compileSchema(schema: unknown): ValidateFunction {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw validationError([{ field: 'schema', reason: 'must be a JSON schema object', value: schema }]);
  // A schema's own `$id` (OpenZiti's built-in types have one) would register it in ajv by that name, and the
  // same type compiled again (another controller in the process, a newer version) would then be refused.
  const { $id: _id, ...anonymous } = schema as Record<string, unknown>;
  try {
    return ajv.compile(anonymous);
  } catch (err) {
    throw validationError([
      { field: 'schema', reason: `not a valid JSON schema: ${(err as Error).message}` },
    ]);
  }
}

function validatorOf(type: ConfigType): ValidateFunction {
  const cached = compiled.get(type.id);
  if (cached && cached.updatedAt === type.updatedAt.getTime()) return cached.validate;
  const validate = compileSchema(type.schema);
  compiled.set(type.id, { updatedAt: type.updatedAt.getTime(), validate });
  return validate;
}

/** Throws 400 naming the first offending field under `data` (e.g. `data.portRanges[0].high`). */
export function assertConfigData(type: ConfigType, data: unknown): void {
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw validationError([{ field: 'data', reason: 'must be an object', value: data }]);
  const validate = validatorOf(type);
  if (validate(data)) return;
  const error = validate.errors![0]!;
  const missing = (error.params as { missingProperty?: string }).missingProperty;
  const inner = pointerToField(error.instancePath, missing);
  throw validationError([
    {
      field: inner ? `data.${inner}` : 'data',
      reason: `${missing ? 'is required' : schemaIssueInWords(error)} (config type ${type.name})`,
      value: missing ? undefined : valueAt(data, error.instancePath),
    },
  ]);
}

function valueAt(data: unknown, pointer: string): unknown {
  let current = data;
  for (const part of pointer.split('/').slice(1))
    current = (current as Record<string, unknown> | undefined)?.[part];
  return current;
}

/**
 * `intercept.v1`'s port ranges: only meaningful with low <= high (JSON schema cannot say so). `host.v1` has no
 * check beside its schema: it is OpenZiti's, and OpenZiti accepts whatever that schema accepts (a range or an
 * allowed address that can never match is stored, and matches nothing at the router).
 */
export function assertPortRanges(typeName: string, data: Record<string, unknown>): void {
  if (typeName !== 'intercept.v1') return;
  const ranges = (data.portRanges as { low: number; high: number }[] | undefined) ?? [];
  ranges.forEach((range, i) => {
    if (range.low > range.high)
      throw validationError([
        { field: `data.portRanges[${i}].low`, reason: 'low must not be above high', value: range.low },
      ]);
  });
}
