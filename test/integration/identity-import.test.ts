/**
 * `POST /edge/management/v1/identities/import`: identities with enrollment tokens from CSV in one call,
 * answered row by row. Good rows are created with their JWT; a bad row is answered with the field at fault and
 * stores nothing; the file itself (header, size, row count, CSV syntax) is checked before any row is created.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, CLIENT, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';
import { ResponseSchemas } from '../helpers/openapi-check.js';
import { newCsr } from '../helpers/enrollment.js';
import { decodeEnrollmentJwt } from '../../src/api/enrollment.js';

let tc: TestController;
let admin: Api;
let schemas: ResponseSchemas;

beforeAll(async () => {
  // A short enrollment lifetime (--enrollment-ttl 600): imported tokens carry it.
  tc = await startTestController({ enrollmentSeconds: 600 });
  admin = new Api(tc.url);
  expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
  schemas = await ResponseSchemas.load(tc.url);
});
afterAll(() => tc?.dispose());

const importCsv = (csv: string, contentType = 'text/csv') =>
  admin.post(`${MGMT}/identities/import`, csv, { 'content-type': contentType });

const named = async (name: string) =>
  (await admin.get(`${MGMT}/identities?filter=${encodeURIComponent(`name = "${name}"`)}`)).body.data as {
    id: string;
    roleAttributes: string[];
    isAdmin: boolean;
    type: { id: string };
  }[];

const identityCount = async () =>
  (await admin.get(`${MGMT}/identities?limit=1`)).body.meta.pagination.totalCount;

describe('CSV import', () => {
  it('creates the good rows with their enrollment JWTs and answers each bad row with its field', async () => {
    const csv = [
      'name,type,roleAttributes,isAdmin,enrollment',
      'csv-alice,User,sales;emea,false,ott',
      'csv-bob,user,sales,,updb:csv-bob',
      'csv-carol,Robot,,false,ott',
      'csv-alice,User,,false,ott',
      'csv-dave,User,,maybe,ott',
      'csv-erin,User,,false,certificate',
      'csv-frank,User,,false,updb:csv-bob',
      '"csv-grace, the second",Device," a ; b ",TRUE,',
      'csv-heidi,User',
    ].join('\r\n');
    const res = await importCsv(csv);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    schemas.assert('POST', '/edge/management/v1/identities/import', res);
    const rows = res.body.data as {
      row: number;
      name: string;
      id?: string;
      enrollment?: { method: string; jwt: string; expiresAt: string };
      error?: { code: string; field: string; message: string };
    }[];
    expect(rows.map((r) => [r.row, r.name, r.error?.field ?? 'created'])).toEqual([
      [2, 'csv-alice', 'created'],
      [3, 'csv-bob', 'created'],
      [4, 'csv-carol', 'type'],
      [5, 'csv-alice', 'name'],
      [6, 'csv-dave', 'isAdmin'],
      [7, 'csv-erin', 'enrollment'],
      [8, 'csv-frank', 'enrollment'],
      [9, 'csv-grace, the second', 'created'],
      [10, 'csv-heidi', 'row'],
    ]);
    expect(res.body.meta).toMatchObject({ created: 3, failed: 6 });
    expect(rows[2]!.error!.message).toBe('type: must be one of User, Device, Service, Router, Default');
    expect(rows[4]!.error!.message).toMatch(/true, false or empty/);
    expect(rows[6]!.error!.message).toMatch(/pending enrollment/);

    // Good rows exist as written; bad rows stored nothing.
    const [alice] = await named('csv-alice');
    expect(alice!.roleAttributes).toEqual(['sales', 'emea']);
    expect(alice!.id).toBe(rows[0]!.id);
    const [grace] = await named('csv-grace, the second');
    expect(grace).toMatchObject({ roleAttributes: ['a', 'b'], isAdmin: true, type: { id: 'Device' } });
    expect(rows[7]!.enrollment).toBeUndefined();
    for (const name of ['csv-carol', 'csv-dave', 'csv-erin', 'csv-frank', 'csv-heidi'])
      expect(await named(name), name).toEqual([]);
    expect(await named('csv-alice')).toHaveLength(1);

    // The JWTs are the identities' own, with the controller's lifetime, and they enroll.
    const ott = decodeEnrollmentJwt(rows[0]!.enrollment!.jwt).claims;
    expect(ott).toMatchObject({ sub: rows[0]!.id, em: 'ott', iss: tc.url });
    expect(ott.exp * 1000 - Date.now()).toBeLessThan(601_000);
    expect(ott.exp * 1000 - Date.now()).toBeGreaterThan(590_000);
    expect(decodeEnrollmentJwt(rows[1]!.enrollment!.jwt).claims).toMatchObject({
      sub: rows[1]!.id,
      em: 'updb',
    });
    const enrolled = await new Api(tc.url).post(
      `${CLIENT}/enroll?method=ott&token=${ott.jti}`,
      (await newCsr()).csrPem,
      { 'content-type': 'application/x-pem-file' },
    );
    expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
  });

  it.each([
    ['an unknown column', 'name,type,colour\nx,User,red', 'header', /unknown column 'colour'/],
    ['no type column', 'name,isAdmin\nx,false', 'header', /'type' is required/],
    ['a column twice', 'name,type,type\nx,User,User', 'header', /named twice/],
    ['nothing at all', '', 'body', /header line comes first/],
    ['a header only', 'name,type\n', 'body', /no rows/],
    ['an unclosed quote', 'name,type\n"x,User\n', 'body', /line 2: a quoted field is not closed/],
  ])('refuses a file with %s before creating anything', async (_what, csv, field, reason) => {
    const before = await identityCount();
    const res = await importCsv(csv);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.cause.field).toBe(field);
    expect(res.body.error.cause.reason).toMatch(reason);
    expect(await identityCount()).toBe(before);
  });

  it('takes at most 1,000 rows and 1 MiB, and only text/csv', async () => {
    const before = await identityCount();
    const rows = (n: number, pad = '') =>
      ['name,type', ...Array.from({ length: n }, (_, i) => `bulk-${i}${pad},User`)].join('\n');
    const many = await importCsv(rows(1001));
    expect(many.status).toBe(400);
    expect(many.body.error.cause.reason).toMatch(/1001 rows; at most 1000/);
    const large = await importCsv(rows(900, 'x'.repeat(1200)));
    expect(large.status).toBe(413);
    expect(large.body.error.message).toMatch(/limit of 1 MiB/);
    const json = await importCsv(JSON.stringify({ csv: rows(1) }), 'application/json');
    expect(json.status).toBe(415);
    // A type no parser takes is told what the route reads, not the API's usual JSON.
    const plain = await importCsv(rows(1), 'application/vnd.ms-excel');
    expect(plain.status).toBe(415);
    expect(plain.body.error.cause).toMatchObject({ field: 'content-type', reason: 'must be text/csv' });
    expect(await identityCount()).toBe(before);
  });

  it('is for administrators only', async () => {
    const res = await new Api(tc.url).post(`${MGMT}/identities/import`, 'name,type\nx,User', {
      'content-type': 'text/csv',
    });
    expect(res.status).toBe(401);
  });
});
