/**
 * NUL and unpaired surrogates arrive in valid JSON (`\u0000`, `\ud800`) but no store keeps them (PostgreSQL
 * refuses them outright): a body, query or id holding one is refused with 400 naming the field, and nothing is
 * stored, on every backend. A proper surrogate pair (an emoji) is ordinary text.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Api, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';

let tc: TestController;
let admin: Api;

beforeAll(async () => {
  tc = await startTestController();
  admin = new Api(tc.url);
  await admin.login('admin', ADMIN_PASSWORD);
});
afterAll(() => tc?.dispose());

const rawPost = (path: string, json: string) =>
  fetch(`${tc.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'zt-session': admin.token! },
    body: json,
  });

// A name's own rule refuses every control character, NUL included, in its own words; the rest is caught here.
const CONTROL = 'must not contain control or formatting characters';
it.each([
  ['a NUL in a name', '{"name":"svc\\u0000x"}', 'name', CONTROL],
  ['an unpaired high surrogate in a tag', '{"name":"svc-tag","tags":{"k":"\\ud800"}}', 'tags.k', 'NUL'],
  ['a NUL in a tag', '{"name":"svc-tag0","tags":{"k":"a\\u0000"}}', 'tags.k', 'NUL'],
  ['a NUL in a key', '{"name":"svc-key","tags":{"k\\u0000":"v"}}', 'tags.k\u0000', 'NUL'],
])('%s is refused naming the field, and nothing is stored', async (_what, json, field, reason) => {
  const res = await rawPost(`${MGMT}/services`, json);
  expect(res.status).toBe(400);
  const body = (await res.json()) as { error: { cause: { field: string; reason: string } } };
  expect(body.error.cause.field).toBe(field);
  expect(body.error.cause.reason).toContain(reason);
  const listed = await admin.get(`${MGMT}/services?filter=${encodeURIComponent('name contains "svc"')}`);
  expect(listed.body.data).toEqual([]);
});

it('a surrogate pair (an emoji) is stored and read back as sent', async () => {
  const res = await rawPost(`${MGMT}/services`, '{"name":"svc-\\ud83d\\ude80"}');
  expect(res.status).toBe(201);
  const { id } = ((await res.json()) as { data: { id: string } }).data;
  expect((await admin.get(`${MGMT}/services/${id}`)).body.data.name).toBe('svc-🚀');
});

it('a NUL in a filter or an id is refused naming it', async () => {
  const filtered = await admin.get(`${MGMT}/services?filter=${encodeURIComponent('name = "a\u0000"')}`);
  expect(filtered.status).toBe(400);
  expect(filtered.body.error.cause.field).toBe('filter');
  const byId = await admin.get(`${MGMT}/services/abc%00def`);
  expect(byId.status).toBe(400);
  expect(byId.body.error.cause.field).toBe('id');
});
