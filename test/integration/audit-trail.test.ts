/**
 * The audit trail (docs/AUDIT.md) on a real controller, on whichever store the project runs: an event lands in
 * the transaction of what it records (a rollback leaves none), administrative changes carry before/after with
 * their secrets redacted, sign-ins and failed sign-ins are recorded, and `GET /audit-events` filters, sorts
 * and pages like every management list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, CLIENT, MGMT, createUser } from '../helpers/api.js';
import {
  create,
  domainGuarded,
  signedInUser,
  startWorld,
  stopWorld,
  type World,
} from '../helpers/data-plane-world.js';
import { unique } from '../helpers/posture-world.js';
import { recordAudit } from '../../controller/audit/audit-trail.js';

const EVENTS = `${MGMT}/audit-events`;

interface WireEvent {
  id: string;
  type: string;
  createdAt: string;
  actor: { id: string; name: string } | null;
  address: string | null;
  identityId: string | null;
  serviceId: string | null;
  reference: string;
  details: Record<string, any>;
}

describe('audit trail', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(async () => {
    await stopWorld(world);
  });

  const events = async (filter: string): Promise<WireEvent[]> => {
    const res = await world.admin.get(`${EVENTS}?limit=500&filter=${encodeURIComponent(filter)}`);
    expect(res.status).toBe(200);
    return res.body.data as WireEvent[];
  };

  it('writes nothing when the transaction it was written in rolls back', async () => {
    const { store, clock } = world.bundle.controller.ctx;
    const marker = unique('rolled-back');
    await expect(
      store.transaction(async () => {
        await recordAudit({ store }, { type: 'admin.created', identityId: marker }, clock.now());
        throw new Error('the change fails after its event was written');
      }),
    ).rejects.toThrow('the change fails');
    expect(await events(`identityId = "${marker}"`)).toEqual([]);
    await store.transaction(() =>
      recordAudit({ store }, { type: 'admin.created', identityId: marker }, clock.now()),
    );
    expect(await events(`identityId = "${marker}"`)).toHaveLength(1);
  });

  it('records an administrative change with who, where and before/after, secrets redacted', async () => {
    const name = unique('audited');
    const id = await createUser(world.admin, name, 'secret-password-1');
    const created = (await events(`type = "admin.created" and identityId = "${id}"`)).filter(
      (e) => e.details.entityType === 'identities',
    );
    expect(created).toHaveLength(1);
    expect(created[0]!.actor?.name).toBe('Default Admin');
    expect(created[0]!.address).toMatch(/127\.0\.0\.1/);
    expect(created[0]!.reference).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{2}$/);
    expect(created[0]!.details).toMatchObject({ entityType: 'identities', entityId: id, before: null });
    expect(created[0]!.details.after.name).toBe(name);

    expect((await world.admin.patch(`${MGMT}/identities/${id}`, { name: `${name}-renamed` })).status).toBe(
      200,
    );
    const updated = await events(`type = "admin.updated" and identityId = "${id}"`);
    expect(updated).toHaveLength(1);
    expect(updated[0]!.details.before.name).toBe(name);
    expect(updated[0]!.details.after.name).toBe(`${name}-renamed`);

    // The password login is recorded on the identity's timeline, its hash redacted.
    const [login] = await events(`type = "admin.created" and identityId = "${id}"`).then((all) =>
      all.filter((e) => e.details.entityType === 'authenticators'),
    );
    expect(login!.details.after.passwordHash).toBe('[redacted]');
    expect(login!.details.after.username).toBe(name);
    const timeline = JSON.stringify(await events(`identityId = "${id}"`));
    expect(timeline).not.toContain('secret-password-1');
    expect(timeline).not.toMatch(/scrypt|\$[0-9a-z]+\$/i);

    const serviceName = unique('audited-svc');
    const serviceId = await create(world.admin, 'services', {
      name: serviceName,
      tags: { apiToken: 'tok-should-not-show', note: 'kept' },
    });
    expect((await world.admin.delete(`${MGMT}/services/${serviceId}`)).status).toBe(200);
    const [deleted] = await events(`type = "admin.deleted" and serviceId = "${serviceId}"`);
    expect(deleted!.details.before.name).toBe(serviceName);
    expect(deleted!.details.before.tags).toEqual({ apiToken: '[redacted]', note: 'kept' });
    expect(deleted!.details.after).toBeNull();
    expect(JSON.stringify(await events(`serviceId = "${serviceId}"`))).not.toContain('tok-should-not-show');
  });

  it('writes no event for a refused write', async () => {
    const name = unique('dup');
    await create(world.admin, 'services', { name });
    const before = (await events('type = "admin.created"')).length;
    const dup = await world.admin.post(`${MGMT}/services`, { name });
    expect(dup.status).toBeGreaterThanOrEqual(400);
    expect(dup.status).toBeLessThan(500);
    expect((await events('type = "admin.created"')).length).toBe(before);
  });

  it('records sign-ins and failed sign-ins', async () => {
    const name = unique('signer');
    const id = await createUser(world.admin, name, 'right-password');
    const anonymous = new Api(world.url);
    expect((await anonymous.login(name, 'wrong-password', CLIENT)).status).toBe(401);
    expect((await anonymous.login(name, 'right-password', CLIENT)).status).toBe(200);

    const failed = await events(`type = "auth.sign-in-failed" and identityId = "${id}"`);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.actor).toBeNull();
    expect(failed[0]!.details).toEqual({ method: 'password', username: name, reason: 'INVALID_AUTH' });
    expect(JSON.stringify(failed)).not.toContain('wrong-password');

    const signedIn = await events(`type = "auth.signed-in" and identityId = "${id}"`);
    expect(signedIn).toHaveLength(1);
    expect(signedIn[0]!.actor).toEqual({ id, name });
    expect(signedIn[0]!.details.method).toBe('password');

    // An unknown username is recorded too, with no identity.
    const ghost = unique('ghost');
    expect((await anonymous.login(ghost, 'whatever', CLIENT)).status).toBe(401);
    const ghostEvents = (await events('type = "auth.sign-in-failed"')).filter(
      (e) => e.details.username === ghost,
    );
    expect(ghostEvents).toHaveLength(1);
    expect(ghostEvents[0]!.identityId).toBeNull();
  });

  it('lists by type and identity, newest first, paged, and refuses a bad filter with a 400', async () => {
    const id = await createUser(world.admin, unique('listed'), 'pw-listed-1');
    for (const suffix of ['a', 'b', 'c'])
      expect((await world.admin.patch(`${MGMT}/identities/${id}`, { tags: { step: suffix } })).status).toBe(
        200,
      );
    const filter = encodeURIComponent(`identityId = "${id}" and type = "admin.updated"`);
    const page = await world.admin.get(`${EVENTS}?filter=${filter}&limit=2`);
    expect(page.status).toBe(200);
    expect(page.body.meta.pagination.totalCount).toBe(3);
    expect(page.body.data.map((e: WireEvent) => e.details.after.tags.step)).toEqual(['c', 'b']);
    const next = await world.admin.get(`${EVENTS}?filter=${filter}&limit=2&offset=2`);
    expect(next.body.data.map((e: WireEvent) => e.details.after.tags.step)).toEqual(['a']);
    const oldestFirst = await world.admin.get(
      `${EVENTS}?filter=${filter}&sort=${encodeURIComponent('createdAt asc')}`,
    );
    expect(oldestFirst.body.data.map((e: WireEvent) => e.details.after.tags.step)).toEqual(['a', 'b', 'c']);

    const one = await world.admin.get(`${EVENTS}/${page.body.data[0].id}`);
    expect(one.status).toBe(200);
    expect(one.body.data.reference).toBe(page.body.data[0].reference);

    const bad = await world.admin.get(`${EVENTS}?filter=${encodeURIComponent('colour = "red"')}`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.cause.field).toBe('filter');
  });
  it("records an access transition with the failing check's actual and expected values, and nothing for a repeated report", async () => {
    const tag = unique('transition');
    const { checkId, serviceId } = await domainGuarded(world.admin, tag);
    const user = await signedInUser(world, [`${tag}-user`]);
    const report = async (domain: string) =>
      expect(
        (await user.api.post(`${CLIENT}/posture-response`, { id: checkId, typeId: 'DOMAIN', domain })).status,
      ).toBe(201);
    const transitions = () => events(`identityId = "${user.id}" and serviceId = "${serviceId}"`);

    await report('corp.example');
    expect(await transitions()).toEqual([]);
    await report('elsewhere.example');
    const [refused, ...others] = await transitions();
    expect(others).toEqual([]);
    expect(refused!.type).toBe('access.refused');
    expect(refused!.actor).toBeNull();
    expect(refused!.details.failingChecks).toEqual([
      expect.objectContaining({
        postureCheckId: checkId,
        typeId: 'DOMAIN',
        actualValue: 'elsewhere.example',
        expectedValue: ['corp.example'],
      }),
    ]);

    // The same facts again: no new event.
    await report('elsewhere.example');
    expect(await transitions()).toHaveLength(1);

    await report('corp.example');
    const after = await transitions();
    expect(after.map((e) => e.type)).toEqual(['access.granted', 'access.refused']);
  });
});
