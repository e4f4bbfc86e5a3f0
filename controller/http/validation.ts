import { Ajv, type Options, type ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import * as formatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats ships CommonJS with a default export; under NodeNext it can arrive wrapped once or twice.
type AddFormats = (ajv: Ajv) => Ajv;
const unwrap = (m: unknown): AddFormats =>
  typeof m === 'function' ? (m as AddFormats) : unwrap((m as { default: unknown }).default);
const addFormats = unwrap(formatsModule);

// verbose: an error carries its schema, so a schema's `x-reasons` can word the answer (error-handler.ts).
const common: Options = { allErrors: false, strict: false, useDefaults: false, verbose: true };

/**
 * `maxJsonBytes`: a bound on a free-form value's size as JSON (tags, client info), which no standard
 * keyword gives for values of any shape.
 */
export function withKeywords(ajv: Ajv): Ajv {
  ajv.addKeyword({
    keyword: 'maxJsonBytes',
    type: ['object', 'array'],
    schemaType: 'number',
    errors: false,
    validate: (max: number, data: unknown) => Buffer.byteLength(JSON.stringify(data)) <= max,
  });
  return addFormats(ajv);
}

// Bodies are JSON: a string is not a number, so no coercion there. Query strings and path parameters
// are text by nature and are coerced to the declared types.
// A body's `1e309` parses to Infinity, which no column holds: strictNumbers refuses it as the wrong type. Not
// for text: there ajv's coercion turns `1e309` into Infinity and strictNumbers would then skip the range
// checks, so every number a query string carries has a `maximum` instead (a `limit` above it is clamped).
const bodyAjv = withKeywords(
  new Ajv({ ...common, strictNumbers: true, coerceTypes: false, removeAdditional: false }),
);
const textAjv = withKeywords(new Ajv({ ...common, coerceTypes: true, removeAdditional: false }));

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
};

const bodyValidators = new WeakMap<TSchema, ValidateFunction>();

/**
 * Checks a value against a body schema outside Fastify's own pass, for a body whose schema depends on what it
 * holds (an impact preview: a create body, or a PATCH body beside the `id` of what it changes). Throws what
 * Fastify throws for a route's body, so the error handler answers it the same way, naming the field.
 */
export function assertBody(schema: TSchema, value: unknown): void {
  let validate = bodyValidators.get(schema);
  if (!validate) bodyValidators.set(schema, (validate = bodyAjv.compile(schema)));
  if (!validate(value))
    throw Object.assign(new Error('body does not match its schema'), {
      statusCode: 400,
      validation: validate.errors ?? [],
      validationContext: 'body',
    });
}
