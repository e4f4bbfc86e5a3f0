/**
 * Numbers no column holds: `1e309` is Infinity once parsed, whether a query string is coerced or a JSON body
 * is read. Each is refused with a 400 naming the field and nothing stored, on SQLite and PostgreSQL alike (a
 * fuzzer once sent `offset=1e309` to the delivery list and PostgreSQL's OFFSET failed with a 500).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';

let controller: TestController;
let admin: Api;

beforeAll(async () => {
  controller = await startTestController();
  admin = new Api(controller.url);
  await admin.login('admin', ADMIN_PASSWORD);
});
afterAll(() => controller.dispose());

describe('numbers beyond any column', () => {
  it.each(['webhook-deliveries', 'identities', 'services', 'api-sessions'])(
    'refuses offset=1e309 on /%s with a 400 naming offset',
    async (list) => {
      const res = await admin.get(`${MGMT}/${list}?offset=1e309`);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(JSON.stringify(res.body.error)).toContain('offset');
    },
  );

  it('refuses a JSON body number that parses to Infinity, naming the field, and stores nothing', async () => {
    const before = (await admin.get(`${MGMT}/services`)).body.meta.pagination.totalCount as number;
    const res = await admin.post(
      `${MGMT}/services`,
      '{"name":"infinite-idle","encryptionRequired":true,"maxIdleTimeMillis":1e309}',
    );
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(JSON.stringify(res.body.error)).toContain('maxIdleTimeMillis');
    expect((await admin.get(`${MGMT}/services`)).body.meta.pagination.totalCount).toBe(before);
  });
});
