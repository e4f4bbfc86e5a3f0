/**
 * Config data is checked against its type's JSON schema, compiled with ajv once per type and kept until the
 * type changes. A config type's own schema is compiled when it is written, so a broken schema is refused then
 * and never reaches a config.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { ConfigType } from '../../model.js';
import { validationError } from '../../api-error.js';
import { pointerToField } from '../../field-path.js';
import { isAddressPattern } from '../../../src/common/address-pattern.js';
import { schemaIssueInWords } from '../../http/validation-words.js';

const ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: false });
const compiled = new Map<string, { updatedAt: number; validate: ValidateFunction }>();

/** Compiles a schema; a schema ajv cannot compile is a 400 naming `schema`. */
export function compileSchema(schema: unknown): ValidateFunction {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw validationError([{ field: 'schema', reason: 'must be a JSON schema object', value: schema }]);
  try {
    return ajv.compile(schema);
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

/** The port-range lists of the built-in types: only meaningful with low <= high (JSON schema cannot say so). */
const RANGE_LISTS: Record<string, string> = { 'intercept.v1': 'portRanges', 'host.v1': 'allowedPortRanges' };

/** What the built-in types' schemas cannot say: each range's low <= high, each allowed address parses. */
export function assertPortRanges(typeName: string, data: Record<string, unknown>): void {
  const list = RANGE_LISTS[typeName];
  const ranges = (list && (data[list] as { low: number; high: number }[] | undefined)) || [];
  ranges.forEach((range, i) => {
    if (range.low > range.high)
      throw validationError([
        { field: `data.${list}[${i}].low`, reason: 'low must not be above high', value: range.low },
      ]);
  });
  if (typeName === 'host.v1') assertAllowedAddresses(data.allowedAddresses as string[] | undefined);
}

function assertAllowedAddresses(addresses: readonly string[] = []): void {
  addresses.forEach((address, i) => {
    if (!isAddressPattern(address))
      throw validationError([
        {
          field: `data.allowedAddresses[${i}]`,
          reason: 'must be an IP address, a CIDR, a host name or *.domain',
          value: address,
        },
      ]);
  });
}
