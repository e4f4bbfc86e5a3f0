/**
 * A field inside a nested object that its schema does not have is refused like one beside the body's own
 * fields (issue 30 item 7): 400 COULD_NOT_VALIDATE naming the full path, and nothing stored. An OS check
 * with `operatingSystems[0].version` (a typo of `versions`) used to be stored, allowing every version.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const countOf = async (name: string) =>
  (await admin.get(`${MGMT}/posture-checks?filter=${encodeURIComponent(`name = "${name}"`)}`)).body.meta
    .pagination.totalCount as number;

describe('unknown fields inside a posture check type’s own fields', () => {
  it('refuses operatingSystems[0].version by its full path and stores nothing', async () => {
    const res = await admin.post(`${MGMT}/posture-checks`, {
      name: 'os-typo',
      typeId: 'OS',
      operatingSystems: [
        { type: 'Linux', versions: ['>=5.0.0'] },
        { type: 'Windows', version: ['>=10.0.0'] },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('COULD_NOT_VALIDATE');
    expect(res.body.error.cause.field).toBe('operatingSystems[1].version');
    expect(res.body.error.cause.reason).toBe('is not a field of this request (check its spelling)');
    expect(await countOf('os-typo')).toBe(0);
  });

  it('refuses one on a PATCH and leaves the check as it was', async () => {
    const created = await admin.post(`${MGMT}/posture-checks`, {
      name: 'process-nested',
      typeId: 'PROCESS',
      process: { osType: 'Linux', path: '/usr/bin/agent' },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const res = await admin.patch(`${MGMT}/posture-checks/${id}`, {
      process: { osType: 'Linux', path: '/usr/bin/other', hash: ['ab'] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.cause.field).toBe('process.hash');
    expect((await admin.get(`${MGMT}/posture-checks/${id}`)).body.data.process.path).toBe('/usr/bin/agent');
  });

  it('still takes the spellings OpenZiti takes: the CLI’s {Type, Versions}', async () => {
    const res = await admin.post(`${MGMT}/posture-checks`, {
      name: 'os-cli',
      typeId: 'OS',
      operatingSystems: [{ Type: 'Linux', Versions: ['>=5.0.0'] }],
    });
    expect(res.status).toBe(201);
  });
});

describe('unknown fields inside a body’s nested objects', () => {
  const body = (updb: Record<string, unknown>) => ({
    name: `nested-${Object.keys(updb).join('-')}`,
    primary: {
      updb: {
        allowed: true,
        minPasswordLength: 5,
        requireSpecialChar: false,
        requireNumberChar: false,
        requireMixedCase: false,
        maxAttempts: 0,
        lockoutDurationMinutes: 0,
        ...updb,
      },
      cert: { allowed: false, allowExpiredCerts: false },
      extJwt: { allowed: false, allowedSigners: [] },
    },
    secondary: { requireTotp: false, requireExtJwtSigner: null },
  });

  it('refuses primary.updb.maxAttempt on an auth policy create, naming the path', async () => {
    const res = await admin.post(`${MGMT}/auth-policies`, body({ maxAttempt: 3 }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('COULD_NOT_VALIDATE');
    expect(res.body.error.cause.field).toBe('primary.updb.maxAttempt');
    const listed = await admin.get(
      `${MGMT}/auth-policies?filter=${encodeURIComponent('name = "nested-maxAttempt"')}`,
    );
    expect(listed.body.meta.pagination.totalCount).toBe(0);
  });

  it('refuses one on an auth policy PATCH and changes nothing', async () => {
    const created = await admin.post(`${MGMT}/auth-policies`, body({}));
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const res = await admin.patch(`${MGMT}/auth-policies/${id}`, {
      primary: { updb: { minPasswordLength: 8, lockout: 5 } },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.error.cause)).toContain('primary.updb');
    expect((await admin.get(`${MGMT}/auth-policies/${id}`)).body.data.primary.updb.minPasswordLength).toBe(5);
  });
});
