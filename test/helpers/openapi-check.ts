import { Ajv, type ValidateFunction } from 'ajv';
import * as formatsModule from 'ajv-formats';
import type { ApiResponse } from './api.js';

type AddFormats = (ajv: Ajv) => Ajv;
const unwrap = (m: unknown): AddFormats =>
  typeof m === 'function' ? (m as AddFormats) : unwrap((m as { default: unknown }).default);

interface OpenApiDoc {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, { schema: object }> }> }>
  >;
}

/**
 * Checks responses against the schemas the controller itself publishes in /openapi.json, so a route
 * cannot drift from its documented shape.
 */
export class ResponseSchemas {
  private readonly ajv = unwrap(formatsModule)(new Ajv({ strict: false, allErrors: true }));
  private readonly cache = new Map<string, ValidateFunction>();

  private constructor(private readonly doc: OpenApiDoc) {}

  static async load(baseUrl: string): Promise<ResponseSchemas> {
    const res = await fetch(`${baseUrl}/openapi.json`);
    return new ResponseSchemas((await res.json()) as OpenApiDoc);
  }

  /** Throws with the schema errors when `res` does not match the documented response of `method pathTemplate`. */
  assert(method: string, pathTemplate: string, res: ApiResponse): void {
    const key = `${method} ${pathTemplate} ${res.status}`;
    let validate = this.cache.get(key);
    if (!validate) {
      const operation = this.doc.paths[pathTemplate]?.[method.toLowerCase()];
      if (!operation) throw new Error(`no documented operation ${method} ${pathTemplate}`);
      const schema = operation.responses?.[String(res.status)]?.content?.['application/json']?.schema;
      if (!schema) throw new Error(`no documented ${res.status} response for ${method} ${pathTemplate}`);
      validate = this.ajv.compile(schema);
      this.cache.set(key, validate);
    }
    if (!validate(res.body)) {
      throw new Error(
        `${key} does not match its schema: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body)}`,
      );
    }
  }

  operations(): string[] {
    return Object.entries(this.doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
  }
}
