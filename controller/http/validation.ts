import { Ajv, type Options } from 'ajv';
import * as formatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats ships CommonJS with a default export; under NodeNext it can arrive wrapped once or twice.
type AddFormats = (ajv: Ajv) => Ajv;
const unwrap = (m: unknown): AddFormats =>
  typeof m === 'function' ? (m as AddFormats) : unwrap((m as { default: unknown }).default);
const addFormats = unwrap(formatsModule);

const common: Options = { allErrors: false, strict: false, useDefaults: false };

// Bodies are JSON: a string is not a number, so no coercion there. Query strings and path parameters
// are text by nature and are coerced to the declared types.
const bodyAjv = addFormats(new Ajv({ ...common, coerceTypes: false, removeAdditional: false }));
const textAjv = addFormats(new Ajv({ ...common, coerceTypes: true, removeAdditional: false }));

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
};
