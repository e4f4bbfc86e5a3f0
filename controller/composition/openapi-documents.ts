/**
 * The OpenAPI documents the controller serves: the whole one at `/openapi.json`, and one per API at
 * `/edge/client/v1/swagger.json` and `/edge/management/v1/swagger.json` (where OpenZiti's clients look),
 * each cut to its own paths, relative to its own base URL. Bodies whose fields depend on `typeId` (posture
 * checks, posture responses) are documented as one schema per type here; the routes still validate them
 * with the check modules, which name the wrong field more precisely than a `oneOf` could.
 */
import type { TSchema } from '@sinclair/typebox';
import { POSTURE_CHECK_DOCS } from '../../src/api/resources/posture-checks.js';
import { POSTURE_RESPONSE_DOCS } from '../../src/api/resources/posture-responses.js';

type Doc = {
  info?: Record<string, unknown>;
  paths?: Record<
    string,
    Record<string, { requestBody?: { content?: Record<string, { schema?: unknown }> } }>
  >;
} & Record<string, unknown>;

/** The per-`typeId` schemas put in place of the generic bodies they describe. */
export function documentTypedBodies(doc: Doc, managementPrefix: string, clientPrefix: string): Doc {
  const typed = (variants: Record<string, TSchema>) => ({
    oneOf: Object.values(variants),
    discriminator: { propertyName: 'typeId' },
  });
  const replace = (path: string, method: string, schema: unknown) => {
    const json = doc.paths?.[path]?.[method]?.requestBody?.content?.['application/json'];
    if (json) json.schema = schema;
  };
  for (const method of ['post', 'put'])
    replace(
      `${managementPrefix}/posture-checks${method === 'put' ? '/{id}' : ''}`,
      method,
      typed(POSTURE_CHECK_DOCS),
    );
  replace(`${clientPrefix}/posture-response`, 'post', typed(POSTURE_RESPONSE_DOCS));
  replace(`${clientPrefix}/posture-response-bulk`, 'post', {
    type: 'array',
    items: typed(POSTURE_RESPONSE_DOCS),
  });
  return doc;
}

/** One API's document: the paths under `prefix`, made relative to it. */
export function apiDocument(whole: Doc, prefix: string, title: string): Doc {
  const paths = Object.fromEntries(
    Object.entries(whole.paths ?? {})
      .filter(([path]) => path.startsWith(`${prefix}/`))
      .map(([path, operations]) => [path.slice(prefix.length), operations]),
  );
  return { ...whole, info: { ...whole.info, title }, servers: [{ url: prefix }], paths };
}
