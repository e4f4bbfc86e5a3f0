/**
 * Every free-text field a client or an administrator can send has a documented length cap: this walks the
 * OpenAPI documents the real controller publishes (controller/composition/openapi-documents.ts) and finds every
 * string property of every request body (nested objects, arrays, unions, `additionalProperties` included)
 * without a `maxLength` (or an `enum`/`const`, or a `format` that bounds it). A new field without a cap fails
 * here, so `externalId` taking 100,000 characters cannot come back. Then one over-long value per capped
 * field that issue 22 named is refused with a 400 naming it, and nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from '../helpers/controller.js';
import { Api, MGMT } from '../helpers/api.js';
import { adminApi } from '../helpers/agent-setup.js';

let tc: TestController;
let admin: Api;
beforeAll(async () => {
  tc = await startTestController();
  admin = await adminApi(tc.url);
});
afterAll(() => tc?.dispose());

type Schema = Record<string, any>;

/** Where a string without a cap is, as `METHOD path body.field[].sub`. */
function uncappedStrings(
  schema: Schema | undefined,
  at: string,
  out: string[],
  seen = new Set<Schema>(),
): void {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return;
  seen.add(schema);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const bounded =
    typeof schema.maxLength === 'number' ||
    schema.enum !== undefined ||
    schema.const !== undefined ||
    ['date-time', 'date', 'uuid'].includes(schema.format);
  if (types.includes('string') && !bounded) out.push(at);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const)
    for (const sub of schema[key] ?? []) uncappedStrings(sub, at, out, seen);
  for (const [name, sub] of Object.entries(schema.properties ?? {}))
    uncappedStrings(sub as Schema, `${at}.${name}`, out, seen);
  if (schema.items) uncappedStrings(schema.items, `${at}[]`, out, seen);
  if (typeof schema.additionalProperties === 'object')
    uncappedStrings(schema.additionalProperties, `${at}.*`, out, seen);
  if (typeof schema.patternProperties === 'object')
    for (const sub of Object.values(schema.patternProperties))
      uncappedStrings(sub as Schema, `${at}.*`, out, seen);
}

describe('request bodies', () => {
  it.each(['/edge/client/v1/swagger.json', '/edge/management/v1/swagger.json'])(
    'every string property of every request body in %s has a maxLength',
    async (path) => {
      const doc = (await (await fetch(`${tc.url}${path}`)).json()) as {
        paths: Record<
          string,
          Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>
        >;
      };
      const uncapped: string[] = [];
      let bodies = 0;
      for (const [route, operations] of Object.entries(doc.paths))
        for (const [method, operation] of Object.entries(operations))
          for (const content of Object.values(operation.requestBody?.content ?? {})) {
            bodies++;
            uncappedStrings(content.schema, `${method.toUpperCase()} ${route} body`, uncapped);
          }
      expect(bodies).toBeGreaterThan(10);
      expect(uncapped).toEqual([]);
    },
  );
});

describe('over-long free text is refused with a 400 naming the field, and nothing is stored', () => {
  const long = 'x'.repeat(100_000);

  async function refused(path: string, body: Record<string, unknown>, field: string, list: string) {
    const before = (await admin.get(`${MGMT}${list}?limit=1`)).body.meta.pagination.totalCount;
    const res = await admin.post(`${MGMT}${path}`, body);
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
    expect(JSON.stringify(res.body.error)).toContain(field);
    expect((await admin.get(`${MGMT}${list}?limit=1`)).body.meta.pagination.totalCount).toBe(before);
  }

  it("an identity's externalId (255)", async () => {
    await refused(
      '/identities',
      { name: 'long-external', type: 'User', isAdmin: false, externalId: long },
      'externalId',
      '/identities',
    );
    const ok = await admin.post(`${MGMT}/identities`, {
      name: 'capped-external',
      type: 'User',
      isAdmin: false,
      externalId: 'e'.repeat(255),
    });
    expect(ok.status).toBe(201);
  });

  it("a posture check's process path (4,096), domain (255) and version range (255)", async () => {
    await refused(
      '/posture-checks',
      { name: 'long-path', typeId: 'PROCESS', process: { osType: 'Linux', path: `/${long}` } },
      'process.path',
      '/posture-checks',
    );
    await refused(
      '/posture-checks',
      { name: 'long-domain', typeId: 'DOMAIN', domains: [long] },
      'domains[0]',
      '/posture-checks',
    );
    await refused(
      '/posture-checks',
      {
        name: 'long-range',
        typeId: 'OS',
        operatingSystems: [{ type: 'Linux', versions: [`>=1.0.0 ${'|| >=1.0.0 '.repeat(30)}`] }],
      },
      'operatingSystems[0].versions[0]',
      '/posture-checks',
    );
  });

  it("a service's config references and an authenticator's identityId (255)", async () => {
    await refused('/services', { name: 'long-config-ref', configs: [long] }, 'configs', '/services');
    await refused(
      '/authenticators',
      { method: 'updb', identityId: long, username: 'long-ref-user', password: 'long-ref-password' },
      'identityId',
      '/authenticators',
    );
  });
});
