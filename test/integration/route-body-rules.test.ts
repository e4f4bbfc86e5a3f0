/**
 * A refused body is told the rule of the route it was sent to: the enrollment routes take 64 KiB of PEM or
 * JSON, the rest of the API 1 MiB of JSON. A client reading "1 MiB, JSON" at /enroll would send the wrong fix.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Api, CLIENT, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';

let tc: TestController;
let admin: Api;

beforeAll(async () => {
  tc = await startTestController();
  admin = new Api(tc.url);
  await admin.login('admin', ADMIN_PASSWORD);
});
afterAll(() => tc?.dispose());

it('a body over the enrollment route limit is told 64 KiB', async () => {
  const res = await new Api(tc.url).post(`${CLIENT}/enroll?method=ott&token=x`, 'A'.repeat(70_000), {
    'content-type': 'application/x-pem-file',
  });
  expect(res.status).toBe(413);
  expect(res.body.error.message).toMatch(/limit of 64 KiB/);
  expect(res.body.error.cause).toMatchObject({ field: 'body', reason: 'exceeds 65536 bytes' });
});

it('an unread media type at the enrollment route names the types it reads', async () => {
  const res = await new Api(tc.url).post(`${CLIENT}/enroll?method=ott&token=x`, 'MIIB', {
    'content-type': 'application/pkcs10',
  });
  expect(res.status).toBe(415);
  expect(res.body.error.cause.field).toBe('content-type');
  expect(res.body.error.cause.reason).toContain('application/x-pem-file');
  expect(res.body.error.cause.reason).toContain('text/plain');
});

it('elsewhere the limit is 1 MiB and the type JSON', async () => {
  const big = await admin.post(`${MGMT}/services`, { name: 'x'.repeat(1_100_000) });
  expect(big.status).toBe(413);
  expect(big.body.error.message).toMatch(/limit of 1 MiB/);
  const xml = await admin.post(`${MGMT}/services`, '<service/>', { 'content-type': 'application/xml' });
  expect(xml.status).toBe(415);
  expect(xml.body.error.cause.reason).toBe('must be application/json');
});
