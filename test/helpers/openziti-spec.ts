/**
 * OpenZiti's own Edge API specification (swagger 2.0, client and management), vendored with its license in
 * test/fixtures/openziti-edge-api/ so the conformance tests run in every clone. Its response schemas are
 * compiled for ajv: definitions become referable schemas, and `x-nullable` (a swagger extension) becomes
 * "or null".
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import * as formatsModule from 'ajv-formats';
import { parse } from 'yaml';

type AddFormats = (ajv: Ajv) => Ajv;
const unwrap = (m: unknown): AddFormats =>
  typeof m === 'function' ? (m as AddFormats) : unwrap((m as { default: unknown }).default);

type Json = Record<string, unknown>;
interface SwaggerDoc {
  basePath: string;
  paths: Record<string, Record<string, { responses?: Record<string, { schema?: Json }> }>>;
  definitions: Record<string, Json>;
}

/** The vendored specification's folder (its README names the source and version). */
export const OPENZITI_SPEC_DIR = resolve(import.meta.dirname, '..', 'fixtures', 'openziti-edge-api');

/** `x-nullable: true` → also null; `$ref`s point at the ajv schema of that definition. */
function toJsonSchema(node: unknown, api: string): unknown {
  if (Array.isArray(node)) return node.map((n) => toJsonSchema(n, api));
  if (typeof node !== 'object' || node === null) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (key === '$ref' && typeof value === 'string')
      out.$ref = `${api}#/definitions/${value.split('/').pop()}`;
    // Swagger's own keywords mean nothing to ajv; a null value (`items: null`) is no constraint.
    else if (['discriminator', 'x-nullable', 'x-omitempty', 'example'].includes(key) || value === null)
      continue;
    // OpenZiti's controller writes `_links` relative (`./services/<id>`) although the spec says `uri`.
    else if (key === 'format' && value === 'uri') out.format = 'uri-reference';
    else out[key] = toJsonSchema(value, api);
  }
  if ((node as Json)['x-nullable'] === true) return { anyOf: [out, { type: 'null' }] };
  return out;
}

export class OpenZitiSpec {
  private readonly ajv = unwrap(formatsModule)(new Ajv({ strict: false, allErrors: true }));
  private readonly docs: Record<'client' | 'management', SwaggerDoc>;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(dir: string = OPENZITI_SPEC_DIR) {
    // The files tag integers `!!float 255`, which YAML 1.2's core schema leaves as strings.
    const floats = { tag: 'tag:yaml.org,2002:float', resolve: (text: string) => Number(text) };
    const read = (file: string) =>
      parse(readFileSync(join(dir, file), 'utf8'), { customTags: [floats] }) as SwaggerDoc;
    this.docs = { client: read('client.yml'), management: read('management.yml') };
    for (const [api, doc] of Object.entries(this.docs))
      this.ajv.addSchema({ $id: api, definitions: toJsonSchema(doc.definitions, api) as Json });
  }

  /** Problems with `body` as the `status` answer of `method template` on `api`; [] when it conforms. */
  problems(
    api: 'client' | 'management',
    method: string,
    template: string,
    status: number,
    body: unknown,
  ): string[] {
    const key = `${api} ${method} ${template} ${status}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      const responses = this.docs[api].paths[template]?.[method.toLowerCase()]?.responses;
      if (!responses) return [`OpenZiti's ${api} API has no ${method} ${template}`];
      const schema =
        responses[String(status)]?.schema ?? responses['200']?.schema ?? responses['201']?.schema;
      if (!schema) return [`OpenZiti documents no ${status} body for ${method} ${template}`];
      validate = this.ajv.compile(toJsonSchema(schema, api) as Json);
      this.compiled.set(key, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) => `${e.instancePath || '(body)'} ${e.message} ${JSON.stringify(e.params)}`,
    );
  }
}
