/**
 * The audit trail's MFA, enrollment, session-cut, API-session and router-link events (docs/AUDIT.md) on a real
 * controller with its embedded router, on whichever store the project runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT, MGMT, createUser } from '../helpers/api.js';
import {
  create,
  dialSession,
  domainGuarded,
  signedInUser,
  startWorld,
  stopWorld,
  type World,
} from '../helpers/data-plane-world.js';
import { unique } from '../helpers/posture-world.js';
import { startEnrollment } from '../helpers/mfa.js';

interface WireEvent {
  id: string;
  type: string;
  createdAt: string;
  actor: { id: string; name: string } | null;
  identityId: string | null;
  serviceId: string | null;
  details: Record<string, any>;
}

describe('audit trail events', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(async () => {
    await stopWorld(world);
  });

  const events = async (filter: string): Promise<WireEvent[]> => {
    const res = await world.admin.get(
      `${MGMT}/audit-events?limit=500&sort=${encodeURIComponent('createdAt asc')}&filter=${encodeURIComponent(filter)}`,
    );
    expect(res.status).toBe(200);
    return res.body.data as WireEvent[];
  };

  it('records the embedded router linking, once', async () => {
    const ups = await events('type = "router.link-up"');
    expect(ups).toHaveLength(1);
    expect(ups[0]!.details.routerId).toBeTruthy();
    expect(ups[0]!.details.routerName).toBeTruthy();
  });

  it('records a posture failure as the access refusal, then the session cut with its cause, once', async () => {
    const tag = unique('cut');
    const { checkId, serviceId } = await domainGuarded(world.admin, tag);
    const user = await signedInUser(world, [`${tag}-user`]);
    const report = async (domain: string) =>
      expect(
        (await user.api.post(`${CLIENT}/posture-response`, { id: checkId, typeId: 'DOMAIN', domain })).status,
      ).toBe(201);
    await report('corp.example');
    const session = await dialSession(user, serviceId);

    await report('elsewhere.example');
    const trail = await events(`identityId = "${user.id}" and serviceId = "${serviceId}"`);
    expect(trail.map((e) => e.type)).toEqual(['access.refused', 'session.cut']);
    expect(trail[1]!.details).toMatchObject({
      sessionId: session.id,
      apiSessionId: user.apiSessionId,
      causeCode: 'posture',
      serviceName: `${tag}-svc`,
    });
    expect(trail[1]!.details.cause).toMatch(/posture check/);

    // The same failing report again cuts nothing more and records nothing.
    await report('elsewhere.example');
    expect(await events(`identityId = "${user.id}" and serviceId = "${serviceId}"`)).toHaveLength(2);
  });

  it('records an API session ending with its cause and who ended it', async () => {
    const user = await signedInUser(world);
    expect((await user.api.delete(`${CLIENT}/current-api-session`)).status).toBe(200);
    const ended = await events(`type = "api-session.ended" and identityId = "${user.id}"`);
    expect(ended).toHaveLength(1);
    expect(ended[0]!.actor).toEqual({ id: user.id, name: user.name });
    expect(ended[0]!.details).toMatchObject({ apiSessionId: user.apiSessionId, causeCode: 'logout' });

    const other = await signedInUser(world);
    expect((await world.admin.delete(`${MGMT}/api-sessions/${other.apiSessionId}`)).status).toBe(200);
    const [byAdmin] = await events(`type = "api-session.ended" and identityId = "${other.id}"`);
    expect(byAdmin!.details.causeCode).toBe('admin-deleted');
    expect(byAdmin!.actor?.name).toBe('Default Admin');
  });

  it('records MFA enrolment, verification, a refused code and an admin reset, never a code or secret', async () => {
    const user = await signedInUser(world);
    const { app, recoveryCodes } = await startEnrollment(user.api);
    const code = await app.code(Date.now());
    expect((await user.api.post(`${CLIENT}/current-identity/mfa/verify`, { code })).status).toBe(200);
    const wrong = code === '000000' ? '111111' : '000000';
    expect((await user.api.post(`${CLIENT}/authenticate/mfa`, { code: wrong })).status).toBe(400);
    expect((await world.admin.delete(`${MGMT}/identities/${user.id}/mfa`)).status).toBe(200);

    const trail = await events(`identityId = "${user.id}" and type contains "mfa."`);
    expect(trail.map((e) => e.type)).toEqual([
      'mfa.enrolled',
      'mfa.verified',
      'mfa.code-refused',
      'mfa.removed',
    ]);
    expect(trail[2]!.details).toMatchObject({ operation: 'authenticate', reason: 'invalid-code' });
    expect(trail[3]!.details.removedBy).toBe('admin');
    expect(trail[3]!.actor?.name).toBe('Default Admin');
    const text = JSON.stringify(trail);
    for (const secret of [code, wrong, app.secret, ...recoveryCodes]) expect(text).not.toContain(secret);
  });

  it('records an enrollment created and deleted', async () => {
    const id = await createUser(world.admin, unique('enrollee'), 'pw-enrollee-1');
    const enrollmentId = await create(world.admin, 'enrollments', { method: 'ott', identityId: id });
    expect((await world.admin.delete(`${MGMT}/enrollments/${enrollmentId}`)).status).toBe(200);
    const trail = await events(`identityId = "${id}" and type contains "enrollment."`);
    expect(trail.map((e) => e.type)).toEqual(['enrollment.created', 'enrollment.deleted']);
    expect(trail[1]!.details).toMatchObject({ enrollmentId, method: 'ott' });
    expect(trail[1]!.actor?.name).toBe('Default Admin');
  });
});
