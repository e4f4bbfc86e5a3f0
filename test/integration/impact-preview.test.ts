/**
 * The impact previews against a real controller: `POST /posture-checks/preview` and
 * `POST /service-policies/preview` answer who would newly lose or gain Dial access and why, in their published
 * shape; their bodies are checked as the create or PATCH they stand for (400 naming the field, 409 for a
 * delete policies refuse); only administrators may ask; and no preview, valid or not, stores anything.
 * (The randomized comparison with what saving really does is impact-preview-random.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MGMT } from '../helpers/api.js';
import { PostureWorld, type TestUser } from '../helpers/posture-world.js';
import { PREVIEW_LIST_LIMIT } from '../../controller/access/preview/impact-preview.js';

let w: PostureWorld;
let alice: TestUser;
let bob: TestUser;
const ids = { crm: '', wiki: '', os: '', domain: '', crmPolicy: '', wikiPolicy: '' };

const linux = (version: string) => ({ typeId: 'OS', type: 'Linux', version, build: '' });

beforeAll(async () => {
  w = await PostureWorld.start();
  ids.os = await w.check({
    name: 'linux-6',
    typeId: 'OS',
    operatingSystems: [{ type: 'Linux', versions: ['>=6.0.0'] }],
    roleAttributes: ['baseline'],
  });
  ids.domain = await w.check({ name: 'corp-domain', typeId: 'DOMAIN', domains: ['corp.example'] });
  ids.crm = await w.service(['sales-apps'], 'crm');
  ids.wiki = await w.service([], 'wiki');
  ids.crmPolicy = await w.create('service-policies', {
    name: 'crm-dial',
    type: 'Dial',
    semantic: 'AnyOf',
    identityRoles: ['#sales'],
    serviceRoles: ['#sales-apps'],
    postureCheckRoles: ['#baseline'],
  });
  ids.wikiPolicy = await w.create('service-policies', {
    name: 'wiki-dial',
    type: 'Dial',
    semantic: 'AnyOf',
    identityRoles: ['#sales'],
    serviceRoles: [`@${ids.wiki}`],
    postureCheckRoles: [`@${ids.domain}`],
  });
  alice = await w.user(['sales'], 'alice');
  bob = await w.user(['sales'], 'bobby');
  await w.respond(alice, { id: ids.os, ...linux('6.8.0') });
  await w.respond(bob, { id: ids.os, ...linux('6.1.0') });
  await w.respond(alice, { id: ids.domain, typeId: 'DOMAIN', domain: 'corp.example' });
});

afterAll(() => w?.dispose());

const previewCheck = async (body: unknown) =>
  w.checked(
    'POST',
    `${MGMT}/posture-checks/preview`,
    await w.admin.post(`${MGMT}/posture-checks/preview`, body),
  );
const previewPolicy = async (body: unknown) =>
  w.checked(
    'POST',
    `${MGMT}/service-policies/preview`,
    await w.admin.post(`${MGMT}/service-policies/preview`, body),
  );

/** Everything a write could change, read through the API and the store. */
async function everything() {
  const read = async (path: string) => (await w.admin.get(`${MGMT}/${path}?limit=500`)).body.data;
  return {
    catalogueVersion: w.ctx.store.catalogueVersion(),
    checks: await read('posture-checks'),
    policies: await read('service-policies'),
    services: await read('services'),
    // Less the last activity, which any request of the administrator's own session moves.
    identities: (await read('identities')).map(
      ({ lastActivityAt: _, ...rest }: Record<string, unknown>) => rest,
    ),
    alice: await w.ctx.store.posture.data.load(alice.id),
    bob: await w.ctx.store.posture.data.load(bob.id),
  };
}

describe('POST /posture-checks/preview', () => {
  it('a stricter version of a check: who loses which service, with actual against expected', async () => {
    const res = await previewCheck({
      id: ids.os,
      operatingSystems: [{ type: 'Linux', versions: ['>=6.5.0'] }],
    });
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({});
    const d = res.body.data;
    expect(d.newlyGranted).toEqual([]);
    expect(d.newlyRefused).toEqual([
      {
        identityId: bob.id,
        identityName: 'bobby',
        serviceId: ids.crm,
        serviceName: 'crm',
        reasons: [
          expect.objectContaining({
            postureCheckId: ids.os,
            postureCheckName: 'linux-6',
            typeId: 'OS',
            actualValue: { type: 'Linux', version: '6.1.0' },
            expectedValue: [{ type: 'Linux', versions: ['>=6.5.0'] }],
            reason: expect.any(String),
            failure: expect.objectContaining({ code: 'OS_VERSION_OUT_OF_RANGE' }),
          }),
        ],
      },
    ]);
    expect(d).toMatchObject({
      newlyRefusedCount: 1,
      newlyGrantedCount: 0,
      identitiesRefused: 1,
      servicesRefused: 1,
    });
  });

  it('an identity with an exception from the check keeps its access, before and after the change alike', async () => {
    const exception = await w.create('posture-check-exceptions', {
      identityId: bob.id,
      postureCheckId: ids.os,
      expiresAt: new Date(Date.now() + 24 * 3600_000).toISOString(),
      reason: 'laptop replacement on order',
    });
    // bob's OS fails the check as it stands: only the exception lets him through
    await w.respond(bob, { id: ids.os, ...linux('5.15.0') });
    try {
      const d = (
        await previewCheck({ id: ids.os, operatingSystems: [{ type: 'Linux', versions: ['>=6.5.0'] }] })
      ).body.data;
      expect(d.newlyRefused).toEqual([]);
      expect(d.newlyRefusedCount).toBe(0);
      // a policy change previews over the exceptions too: the new policy's check is excepted for bob
      const policy = (
        await previewPolicy({
          name: 'wiki-os',
          type: 'Dial',
          semantic: 'AnyOf',
          identityRoles: ['#sales'],
          serviceRoles: [`@${ids.wiki}`],
          postureCheckRoles: [`@${ids.os}`],
        })
      ).body.data;
      expect(policy.newlyGranted.map((i: { identityId: string }) => i.identityId)).toEqual([bob.id]);
    } finally {
      expect((await w.admin.delete(`${MGMT}/posture-check-exceptions/${exception}`)).status).toBe(200);
      await w.respond(bob, { id: ids.os, ...linux('6.1.0') });
    }
  });

  it('a looser one: who gains, and the check that refuses it now', async () => {
    await w.respond(bob, { id: ids.os, ...linux('5.15.0') });
    try {
      const d = (
        await previewCheck({ id: ids.os, operatingSystems: [{ type: 'Linux', versions: ['>=5.0.0'] }] })
      ).body.data;
      expect(d.newlyRefused).toEqual([]);
      expect(d.newlyGranted).toEqual([
        expect.objectContaining({
          identityId: bob.id,
          serviceId: ids.crm,
          reasons: [expect.objectContaining({ postureCheckId: ids.os, actualValue: expect.anything() })],
        }),
      ]);
      expect(d.newlyGrantedCount).toBe(1);
    } finally {
      await w.respond(bob, { id: ids.os, ...linux('6.1.0') });
    }
  });

  it('a new check the policies select by attribute, and the deletion of one (cascading)', async () => {
    const created = (
      await previewCheck({
        name: 'corp-domain-too',
        typeId: 'DOMAIN',
        domains: ['corp.example'],
        roleAttributes: ['baseline'],
      })
    ).body.data;
    expect(created.newlyRefused.map((i: { identityName: string }) => i.identityName)).toEqual(['bobby']);
    // The new check has no id until it is saved.
    expect(created.newlyRefused[0].reasons[0]).toMatchObject({
      postureCheckId: null,
      postureCheckName: 'corp-domain-too',
    });
    const deleted = (await previewCheck({ id: ids.domain, delete: true, cascade: true })).body.data;
    expect(deleted.newlyGranted).toEqual([
      expect.objectContaining({ identityId: bob.id, serviceId: ids.wiki }),
    ]);
  });

  it('refuses what the write would refuse, naming the field as the write names it', async () => {
    const cause = async (body: Record<string, unknown>, status = 400) => {
      const res = await w.admin.post(`${MGMT}/posture-checks/preview`, body);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      return res.body.error;
    };
    // The create or PATCH itself answers the same cause (and, refusing, stores nothing either).
    const asWrite = async (body: Record<string, unknown>) => {
      const { id, ...fields } = body;
      const write = id
        ? await w.admin.patch(`${MGMT}/posture-checks/${id as string}`, fields)
        : await w.admin.post(`${MGMT}/posture-checks`, fields);
      expect(write.status).toBe(400);
      const preview = await cause(body);
      expect(preview.cause).toEqual(write.body.error.cause);
      return preview.cause.field;
    };
    expect(await asWrite({ name: 'x', operatingSystems: [] })).toBe('typeId');
    expect(await asWrite({ name: 'x', typeId: 'NOPE' })).toBe('typeId');
    expect(
      await asWrite({ name: 'x', typeId: 'OS', operatingSystems: [{ type: 'Linux', versions: 'no' }] }),
    ).toBe('operatingSystems[0].versions');
    expect(await asWrite({ typeId: 'DOMAIN', domains: ['a.example'] })).toBe('name');
    expect(await asWrite({ name: 'x', typeId: 'DOMAIN', domains: ['a.example'], colour: 1 })).toBe('colour');
    expect(await asWrite({ name: 'linux-6', typeId: 'DOMAIN', domains: ['a.example'] })).toBe('name');
    expect(await asWrite({ id: ids.os, typeId: 'DOMAIN' })).toBe('typeId');
    expect(await asWrite({ id: ids.os, operatingSystems: 'Linux' })).toBe('operatingSystems');
    // What only a preview body holds.
    expect((await cause({ id: 'nope', domains: ['a.example'] })).cause.field).toBe('id');
    expect((await cause({ id: ids.os, delete: true, name: 'x' })).cause.field).toBe('name');
    expect((await cause({ delete: true })).cause.field).toBe('id');
    expect((await cause({ id: ids.os, delete: false })).cause.field).toBe('delete');
    expect((await cause({ id: ids.os, cascade: true, name: 'y' })).cause.field).toBe('cascade');
    // Named by a policy's `@id`: the DELETE without cascade would be refused, so is its preview.
    expect((await cause({ id: ids.domain, delete: true }, 409)).code).toBe(
      'CAN_NOT_DELETE_REFERENCED_ENTITY',
    );
  });
});

describe('POST /service-policies/preview', () => {
  it('a policy change, a new policy and a deletion', async () => {
    // Both reach crm today; narrowed to alice, bob loses it (no policy selects him: no check to blame).
    const narrowed = (await previewPolicy({ id: ids.crmPolicy, identityRoles: [`@${alice.id}`] })).body.data;
    expect(narrowed.newlyRefused).toEqual([
      expect.objectContaining({ identityId: bob.id, serviceId: ids.crm, reasons: [] }),
    ]);
    // Only wiki's check for bob, who fails it: nothing he has now is lost, wiki is not granted.
    const stricter = (await previewPolicy({ id: ids.crmPolicy, postureCheckRoles: [`@${ids.domain}`] })).body
      .data;
    expect(stricter.newlyRefused).toEqual([
      expect.objectContaining({
        identityId: bob.id,
        serviceId: ids.crm,
        reasons: [expect.objectContaining({ postureCheckId: ids.domain })],
      }),
    ]);
    const open = (
      await previewPolicy({
        name: 'wiki-open',
        type: 'Dial',
        semantic: 'AnyOf',
        identityRoles: ['#sales'],
        serviceRoles: [`@${ids.wiki}`],
      })
    ).body.data;
    expect(open.newlyGranted.map((i: { identityName: string }) => i.identityName)).toEqual(['bobby']);
    const bind = (
      await previewPolicy({
        name: 'wiki-bind',
        type: 'Bind',
        semantic: 'AnyOf',
        identityRoles: ['#all'],
        serviceRoles: [`@${ids.wiki}`],
      })
    ).body.data;
    expect(bind.newlyGrantedCount).toBe(0); // Dial access is what is compared
    const gone = (await previewPolicy({ id: ids.wikiPolicy, delete: true })).body.data;
    expect(gone).toMatchObject({ newlyRefusedCount: 1, identitiesRefused: 1, servicesRefused: 1 });
  });

  it('refuses what the write would refuse, naming the field', async () => {
    const cause = async (body: unknown) => {
      const res = await w.admin.post(`${MGMT}/service-policies/preview`, body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      return res.body.error.cause.field;
    };
    expect(await cause({ type: 'Dial', semantic: 'AnyOf' })).toBe('name');
    expect(await cause({ name: 'p', type: 'Sideways', semantic: 'AnyOf' })).toBe('type');
    expect(await cause({ name: 'p', type: 'Dial', semantic: 'AnyOf', identityRoles: ['@nobody'] })).toBe(
      'identityRoles[0]',
    );
    expect(await cause({ id: ids.crmPolicy, serviceRoles: ['sales'] })).toBe('serviceRoles[0]');
    expect(await cause({ id: ids.crmPolicy, cascade: true, delete: true })).toBe('cascade');
    expect(await cause({ name: 'crm-dial', type: 'Dial', semantic: 'AnyOf' })).toBe('name');
  });
});

describe('every preview', () => {
  it('is for administrators only', async () => {
    for (const path of ['posture-checks/preview', 'service-policies/preview'])
      expect((await alice.api.post(`${MGMT}/${path}`, { id: ids.crmPolicy, delete: true })).status).toBe(401);
  });

  it('stores nothing, whether it is answered or refused', async () => {
    // A check a policy names by `@id`, whose cascading delete would change that policy if it were made.
    const pinned = await w.check({ name: 'pinned', typeId: 'DOMAIN', domains: ['corp.example'] });
    await w.policy({ name: 'pinned-policy', identityRoles: ['#sales'], postureCheckRoles: [`@${pinned}`] });
    const before = await everything();
    const bodies: [string, unknown][] = [
      ['posture-checks', { id: ids.os, operatingSystems: [{ type: 'Linux', versions: ['>=9.0.0'] }] }],
      [
        'posture-checks',
        { name: 'new-one', typeId: 'MFA', timeoutSeconds: 60, roleAttributes: ['baseline'] },
      ],
      ['posture-checks', { id: pinned, delete: true, cascade: true }],
      ['posture-checks', { id: pinned, delete: true }],
      ['posture-checks', { id: ids.domain, delete: true, cascade: true }],
      ['posture-checks', { id: ids.domain, delete: true }],
      ['posture-checks', { id: ids.os, roleAttributes: ['elsewhere'], name: 'renamed' }],
      ['posture-checks', { name: 'bad', typeId: 'OS', operatingSystems: 'no' }],
      ['service-policies', { id: ids.crmPolicy, identityRoles: ['#all'], postureCheckRoles: [] }],
      ['service-policies', { id: ids.wikiPolicy, delete: true }],
      [
        'service-policies',
        { name: 'another', type: 'Dial', semantic: 'AllOf', identityRoles: [`@${alice.name}`] },
      ],
      ['service-policies', { name: 'bad', type: 'Dial', semantic: 'AnyOf', identityRoles: ['@nobody'] }],
    ];
    for (const [collection, body] of bodies)
      expect((await w.admin.post(`${MGMT}/${collection}/preview`, body)).status).not.toBe(500);
    expect(await everything()).toEqual(before);
  });

  it('lists at most 1,000 pairs and counts them all', async () => {
    // Last in this file: more identities than a list holds, selected by their own attribute and policy.
    const extra = PREVIEW_LIST_LIMIT + 5;
    const now = w.ctx.clock.now();
    await w.ctx.store.transaction(async () => {
      for (let i = 0; i < extra; i++)
        await w.ctx.store.identities.create({
          id: `bulk-${i}`,
          name: `bulk-${String(i).padStart(5, '0')}`,
          tags: {},
          createdAt: now,
          updatedAt: now,
          type: 'Device',
          isAdmin: false,
          isDefaultAdmin: false,
          roleAttributes: ['bulk'],
          authPolicyId: 'default',
          externalId: null,
          disabled: false,
        });
    });
    const policy = await w.create('service-policies', {
      name: 'bulk-wiki',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: ['#bulk'],
      serviceRoles: [`@${ids.wiki}`],
    });
    const d = (await previewPolicy({ id: policy, delete: true })).body.data;
    expect(d.newlyRefusedCount).toBe(extra);
    expect(d.identitiesRefused).toBe(extra);
    expect(d.newlyRefused).toHaveLength(PREVIEW_LIST_LIMIT);
    expect(d.newlyRefused[0].identityName).toBe('bulk-00000');
    expect(d.newlyRefused.at(-1).identityName).toBe(
      `bulk-${String(PREVIEW_LIST_LIMIT - 1).padStart(5, '0')}`,
    );
  });
});
