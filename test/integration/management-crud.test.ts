import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, MGMT, authPolicyBody } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';
import { ResponseSchemas } from '../helpers/openapi-check.js';

let controller: TestController;
let schemas: ResponseSchemas;
let admin: Api;

beforeAll(async () => {
  controller = await startTestController();
  schemas = await ResponseSchemas.load(controller.url);
  admin = new Api(controller.url);
  await admin.login('admin', ADMIN_PASSWORD);
});
afterAll(() => controller.dispose());

interface Case {
  collection: string;
  create: Record<string, unknown>;
  put: Record<string, unknown>;
  patch: Record<string, unknown>;
  /** a field the PATCH changed and its new value */
  patched: [string, unknown];
}

const cases: Case[] = [
  {
    collection: 'identities',
    create: { name: 'laptop-1', type: 'Device', isAdmin: false, roleAttributes: ['sales'] },
    put: { name: 'laptop-1b', type: 'Device', isAdmin: false, roleAttributes: ['sales', 'emea'] },
    // stored as given, as OpenZiti does: `#` is role syntax, not part of an attribute
    patch: { roleAttributes: ['#support'] },
    patched: ['roleAttributes', ['#support']],
  },
  {
    collection: 'services',
    create: { name: 'crm', roleAttributes: ['sales-apps'] },
    put: { name: 'crm-2', roleAttributes: ['sales-apps'], encryptionRequired: false },
    patch: { roleAttributes: ['tier1'] },
    patched: ['roleAttributes', ['tier1']],
  },
  {
    collection: 'service-policies',
    create: {
      name: 'sales-dial',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: ['#sales'],
      serviceRoles: ['#sales-apps'],
      postureCheckRoles: [],
    },
    put: {
      name: 'sales-dial-2',
      type: 'Bind',
      semantic: 'AllOf',
      identityRoles: ['#all'],
      serviceRoles: ['#sales-apps'],
    },
    patch: { postureCheckRoles: ['#healthy'] },
    patched: ['postureCheckRoles', ['#healthy']],
  },
  {
    collection: 'auth-policies',
    create: {
      name: 'strict',
      primary: {
        updb: {
          allowed: true,
          minPasswordLength: 12,
          requireSpecialChar: true,
          requireNumberChar: true,
          requireMixedCase: true,
          maxAttempts: 5,
          lockoutDurationMinutes: 10,
        },
        cert: { allowed: false, allowExpiredCerts: false },
        extJwt: { allowed: false, allowedSigners: [] },
      },
      secondary: { requireTotp: true },
    },
    put: {
      name: 'strict-2',
      primary: {
        updb: {
          allowed: true,
          minPasswordLength: 10,
          requireSpecialChar: false,
          requireNumberChar: false,
          requireMixedCase: false,
          maxAttempts: 0,
          lockoutDurationMinutes: 0,
        },
        cert: { allowed: false, allowExpiredCerts: false },
        extJwt: { allowed: false, allowedSigners: [] },
      },
      secondary: { requireTotp: false },
    },
    patch: { secondary: { requireTotp: true } },
    patched: ['secondary', { requireTotp: true, requireExtJwtSigner: null }],
  },
  {
    collection: 'posture-checks',
    create: {
      typeId: 'MAC',
      name: 'office-nics',
      attributes: ['office'],
      macAddresses: ['AA-BB-CC-DD-EE-FF'],
    },
    put: {
      typeId: 'MAC',
      name: 'office-nics-2',
      roleAttributes: ['office'],
      macAddresses: ['aa:bb:cc:dd:ee:00'],
    },
    patch: { typeId: 'MAC', macAddresses: ['11-22-33-44-55-66'] },
    patched: ['macAddresses', ['112233445566']],
  },
];

describe.each(cases)('management CRUD: $collection', (c) => {
  const base = `${MGMT}/${c.collection}`;
  it('creates, reads, lists, replaces, patches and deletes with OpenZiti envelopes', async () => {
    const created = await admin.post(base, c.create);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    schemas.assert('POST', base, created);
    const id = created.body.data.id as string;
    expect(created.body.data._links.self.href).toBe(`./${c.collection}/${id}`);

    const read = await admin.get(`${base}/${id}`);
    expect(read.status).toBe(200);
    schemas.assert('GET', `${base}/{id}`, read);
    expect(read.body.data.name).toBe(c.create.name);

    const listed = await admin.get(`${base}?limit=500`);
    schemas.assert('GET', base, listed);
    expect(listed.body.data.map((e: { id: string }) => e.id)).toContain(id);
    expect(listed.body.meta.pagination).toMatchObject({ limit: 500, offset: 0 });

    const put = await admin.put(`${base}/${id}`, c.put);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toEqual({ data: {}, meta: {} });
    expect((await admin.get(`${base}/${id}`)).body.data.name).toBe(c.put.name);

    const patch = await admin.patch(`${base}/${id}`, c.patch);
    expect(patch.status, JSON.stringify(patch.body)).toBe(200);
    const afterPatch = await admin.get(`${base}/${id}`);
    expect(afterPatch.body.data[c.patched[0]]).toEqual(c.patched[1]);
    expect(afterPatch.body.data.name).toBe(c.put.name);

    const del = await admin.delete(`${base}/${id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ data: {}, meta: {} });
    const gone = await admin.get(`${base}/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('NOT_FOUND');
    schemas.assert('GET', `${base}/{id}`, gone);
  });

  it('refuses a duplicate name with 400 naming the field, and an unknown id with 404', async () => {
    const first = await admin.post(base, { ...c.create, name: `dup-${c.collection}` });
    expect(first.status).toBe(201);
    const count = (await admin.get(base)).body.meta.pagination.totalCount;
    const second = await admin.post(base, { ...c.create, name: `dup-${c.collection}` });
    expect(second.status).toBe(400);
    expect(second.body.error.code).toBe('COULD_NOT_VALIDATE');
    expect(second.body.error.cause.field).toBe('name');
    expect((await admin.get(base)).body.meta.pagination.totalCount).toBe(count);
    for (const method of ['put', 'patch', 'delete'] as const) {
      const res =
        method === 'delete'
          ? await admin.delete(`${base}/no-such-id`)
          : await admin[method](`${base}/no-such-id`, c.put);
      expect(res.status, method).toBe(404);
    }
  });
});

describe('lists', () => {
  it('paginates with limit and offset and reports the total', async () => {
    for (let i = 0; i < 12; i++)
      expect(
        (await admin.post(`${MGMT}/services`, { name: `page-svc-${String(i).padStart(2, '0')}` })).status,
      ).toBe(201);
    const first = await admin.get(`${MGMT}/services?filter=name contains "page-svc"&limit=5`);
    expect(first.body.data).toHaveLength(5);
    expect(first.body.meta.pagination).toEqual({ limit: 5, offset: 0, totalCount: 12 });
    const last = await admin.get(`${MGMT}/services?filter=name contains "page-svc"&limit=5&offset=10`);
    expect(last.body.data.map((s: { name: string }) => s.name)).toEqual(['page-svc-10', 'page-svc-11']);
    const byDefault = await admin.get(`${MGMT}/services`);
    expect(byDefault.body.meta.pagination.limit).toBe(10);
  });

  it('clamps a limit above 500 as OpenZiti does, refuses a bad limit and an unsupported filter', async () => {
    const clamped = await admin.get(`${MGMT}/services?limit=5000`);
    expect(clamped.status).toBe(200);
    expect(clamped.body.meta.pagination.limit).toBe(500);
    const limit = await admin.get(`${MGMT}/services?limit=-5`);
    expect(limit.status).toBe(400);
    expect(limit.body.error.cause.field).toBe('limit');
    const filter = await admin.get(`${MGMT}/services?filter=${encodeURIComponent('tags.x = 1')}`);
    expect(filter.status).toBe(400);
    expect(filter.body.error.code).toBe('INVALID_FILTER');
  });
});

describe('service policy roles', () => {
  it('accepts #attribute, @id, @name (stored as @id) and #all; shows names in *RolesDisplay', async () => {
    const svc = (await admin.post(`${MGMT}/services`, { name: 'payroll' })).body.data.id;
    const res = await admin.post(`${MGMT}/service-policies`, {
      name: 'roles-ok',
      type: 'Dial',
      semantic: 'AllOf',
      identityRoles: ['#all'],
      serviceRoles: ['@payroll', '#hr'],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const detail = (await admin.get(`${MGMT}/service-policies/${res.body.data.id}`)).body.data;
    expect(detail.serviceRoles).toEqual([`@${svc}`, '#hr']);
    expect(detail.serviceRolesDisplay).toEqual([
      { role: `@${svc}`, name: '@payroll' },
      { role: '#hr', name: '#hr' },
    ]);
  });

  it.each([
    [{ identityRoles: ['sales'] }, 'identityRoles[0]'],
    [{ identityRoles: ['#all', '#sales'] }, 'identityRoles[0]'],
    [{ serviceRoles: ['#ok', '@no-such-service'] }, 'serviceRoles[1]'],
    [{ postureCheckRoles: [''] }, 'postureCheckRoles[0]'],
    [{ type: 'Both' }, 'type'],
    [{ semantic: 'OneOf' }, 'semantic'],
  ])('refuses %j naming %s, and stores nothing', async (override, field) => {
    const before = (await admin.get(`${MGMT}/service-policies`)).body.meta.pagination.totalCount;
    const res = await admin.post(`${MGMT}/service-policies`, {
      name: 'roles-bad',
      type: 'Dial',
      semantic: 'AnyOf',
      ...override,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('COULD_NOT_VALIDATE');
    expect(res.body.error.cause.field).toBe(field);
    expect((await admin.get(`${MGMT}/service-policies`)).body.meta.pagination.totalCount).toBe(before);
  });
});

describe('schema failures in words', () => {
  it.each([
    ['identities', { name: '', type: 'Device', isAdmin: false }, 'name', 'must not be empty'],
    ['services', { name: 'x'.repeat(300) }, 'name', 'must be at most 255 characters'],
    ['identities', { name: 'typed', type: 'Device', isAdmin: 'no' }, 'isAdmin', 'must be true or false'],
  ])(
    'POST /%s with %j names %s: "%s", not the validator\'s phrasing',
    async (collection, body, field, reason) => {
      const res = await admin.post(`${MGMT}/${collection}`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.cause).toMatchObject({ field, reason });
    },
  );
});

describe('identities, authenticators and auth policies', () => {
  it('creates a password login for an identity; the password is never returned', async () => {
    const id = (await admin.post(`${MGMT}/identities`, { name: 'bob', type: 'User', isAdmin: false })).body
      .data.id;
    const auth = await admin.post(`${MGMT}/authenticators`, {
      method: 'updb',
      identityId: id,
      username: 'bobby',
      password: 'bob-password',
    });
    expect(auth.status).toBe(201);
    const detail = await admin.get(`${MGMT}/authenticators/${auth.body.data.id}`);
    schemas.assert('GET', `${MGMT}/authenticators/{id}`, detail);
    expect(JSON.stringify(detail.body)).not.toContain('bob-password');
    const identity = (await admin.get(`${MGMT}/identities/${id}`)).body.data;
    expect(identity.authenticators.updb.username).toBe('bobby');
    expect((await new Api(controller.url).login('bobby', 'bob-password')).status).toBe(200);

    expect(
      (await admin.patch(`${MGMT}/authenticators/${auth.body.data.id}`, { password: 'bob-new-password' }))
        .status,
    ).toBe(200);
    expect((await new Api(controller.url).login('bobby', 'bob-password')).status).toBe(401);
    expect((await new Api(controller.url).login('bobby', 'bob-new-password')).status).toBe(200);

    const unknown = await admin.post(`${MGMT}/authenticators`, {
      method: 'updb',
      identityId: 'nope',
      username: 'ghost',
      password: 'ghost-pass',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.cause.field).toBe('identityId');
  });

  it('deleting an identity ends its sessions and removes its login', async () => {
    const id = (await admin.post(`${MGMT}/identities`, { name: 'carol', type: 'User', isAdmin: false })).body
      .data.id;
    await admin.post(`${MGMT}/authenticators`, {
      method: 'updb',
      identityId: id,
      username: 'carol',
      password: 'carol-password',
    });
    const carol = new Api(controller.url);
    await carol.login('carol', 'carol-password');
    expect((await admin.delete(`${MGMT}/identities/${id}`)).status).toBe(200);
    expect((await carol.get(`/edge/client/v1/current-api-session`)).status).toBe(401);
    expect((await new Api(controller.url).login('carol', 'carol-password')).status).toBe(401);
  });

  it('protects the default admin and the default auth policy, and policies in use', async () => {
    const me = (await admin.get(`${MGMT}/current-identity`)).body.data;
    expect(me.isDefaultAdmin).toBe(true);
    expect((await admin.delete(`${MGMT}/identities/${me.id}`)).status).toBe(409);
    const demote = await admin.patch(`${MGMT}/identities/${me.id}`, { isAdmin: false });
    expect(demote.status).toBe(400);
    expect(demote.body.error.cause.field).toBe('isAdmin');
    for (const disable of [
      () => admin.patch(`${MGMT}/identities/${me.id}`, { disabled: true }),
      () =>
        admin.put(`${MGMT}/identities/${me.id}`, {
          name: me.name,
          type: me.type.id ?? me.type,
          isAdmin: true,
          disabled: true,
        }),
    ]) {
      const res = await disable();
      expect(res.status).toBe(409);
      expect(res.body.error.message).toBe('The default admin identity cannot be disabled');
    }
    // Nothing changed: the admin still works.
    expect((await admin.get(`${MGMT}/current-identity`)).body.data.disabled).toBe(false);
    expect((await admin.delete(`${MGMT}/auth-policies/default`)).status).toBe(409);

    const policy = (await admin.post(`${MGMT}/auth-policies`, authPolicyBody('in-use', false))).body.data.id;
    const user = await admin.post(`${MGMT}/identities`, {
      name: 'dave',
      type: 'User',
      isAdmin: false,
      authPolicyId: policy,
    });
    expect(user.status).toBe(201);
    expect((await admin.delete(`${MGMT}/auth-policies/${policy}`)).status).toBe(409);
    const badRef = await admin.post(`${MGMT}/identities`, {
      name: 'erin',
      type: 'User',
      isAdmin: false,
      authPolicyId: 'missing',
    });
    expect(badRef.status).toBe(400);
    expect(badRef.body.error.cause.field).toBe('authPolicyId');
  });

  it('lists the posture check types', async () => {
    const res = await admin.get(`${MGMT}/posture-check-types`);
    schemas.assert('GET', `${MGMT}/posture-check-types`, res);
    expect(res.body.data.map((t: { id: string }) => t.id).sort()).toEqual([
      'AGENT_VERSION',
      'DISK_ENCRYPTION',
      'DOMAIN',
      'FIREWALL',
      'MAC',
      'MFA',
      'OS',
      'PROCESS',
      'PROCESS_MULTI',
      'SCREEN_LOCK',
    ]);
    expect((await admin.get(`${MGMT}/posture-check-types/OS`)).body.data.name).toBe('Operating System Check');
  });
});
