/**
 * ZAC's service, router and identity pages, replayed against a real controller with its embedded router and a
 * real TCP server behind it, as ZAC 4.5.2 (github.com/openziti/ziti-console, ZL = projects/ziti-console-lib/
 * src/lib) puts its requests on the wire: the Simple Service wizard (ZL/features/projectable-forms/service/
 * simple-service/simple-service.component.ts: checkNameConflicts, saveInterceptConfig, saveHostConfig,
 * saveService, savePolicy) then traffic through what it made; the service's and config's related lists and
 * configs by type; a router's detail and related lists (ZL/pages/edge-routers, edge-router-form); an identity's
 * disable and enable (ZL/features/projectable-forms/identity/identity-form.component.ts), its "Reset
 * enrollment" (ZL/features/reset-enrollment), its routers and its policy advice (identity-form.service.ts
 * testService). The standalone router's enrollment from the detail's
 * JWT is in router-standalone.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { CLIENT, MGMT } from '../helpers/api.js';
import { browserUrl, replay, type Step } from '../helpers/openziti-replay.js';
import {
  closeServer,
  closedWithin,
  dialSession,
  echoServer,
  openStream,
  roundTrip,
  routerSession,
  sha256,
  signedInUser,
  startWorld,
  stopWorld,
  type World,
} from '../helpers/data-plane-world.js';
import { unique } from '../helpers/posture-world.js';

const M = MGMT;
let world: World;
let echo: Awaited<ReturnType<typeof echoServer>>;
let token = '';

beforeAll(async () => {
  world = await startWorld();
  echo = await echoServer();
  const login = await world.admin.as(undefined).login('admin', 'admin-password-for-tests');
  token = login.body.data.token as string;
});
afterAll(async () => {
  if (echo) await closeServer(echo.server, echo.sockets);
  if (world) await stopWorld(world);
});

/** ZAC's interceptor headers (app-ziti-console/src/app/interceptors/ziti-api.interceptor.ts). */
const zac = (s: Omit<Step, 'headers'>) =>
  replay(world.url, {
    ...s,
    does: `ZAC ${s.does}`,
    path: browserUrl(s.path),
    headers: { accept: 'application/json', 'content-type': 'application/json', 'zt-session': token },
  });
const page = 'limit=100&offset=0&sort=name asc';

describe("ZAC's Simple Service wizard", () => {
  it('creates a service whose traffic flows, and shows its configs', async () => {
    const name = unique('zac-simple');
    const attribute = `${name}-users`;
    // checkNameConflicts: a TEXTINPUT filter with verb '=' on each name, paging noSearch false
    for (const [type, n] of [
      ['services', name],
      ['configs', `${name}-intercept-config`],
      ['configs', `${name}-host-config`],
      ['service-policies', `${name}-dial-policy`],
      ['service-policies', `${name}-bind-policy`],
    ])
      expect(
        (
          await zac({
            does: `checks the name ${n} is free`,
            method: 'GET',
            path: `${M}/${type}?filter= name = "${n}"&limit=25&offset=0&sort=name  asc`,
            status: 200,
            reads: { data: 'array' },
          })
        ).body.data,
      ).toEqual([]);
    const intercept = await zac({
      does: 'saves the intercept config',
      method: 'POST',
      path: `${M}/configs`,
      body: {
        name: `${name}-intercept-config`,
        configTypeId: 'g7cIWbcGg',
        data: {
          portRanges: [{ high: echo.port, low: echo.port }],
          addresses: [`${name}.ziti`],
          protocols: ['tcp', 'udp'],
        },
      },
      status: 201,
      reads: { 'data.id': 'string' },
    });
    // initHostConfigApiData: forwardProtocol with allowedProtocols, and no `protocol`
    const host = await zac({
      does: 'saves the host config',
      method: 'POST',
      path: `${M}/configs`,
      body: {
        name: `${name}-host-config`,
        configTypeId: 'NH5p4FpGR',
        data: { address: '127.0.0.1', port: echo.port, forwardProtocol: true, allowedProtocols: ['tcp'] },
      },
      status: 201,
      reads: { 'data.id': 'string' },
    });
    const configIds = [intercept.body.data.id as string, host.body.data.id as string];
    const service = await zac({
      does: 'saves the service',
      method: 'POST',
      path: `${M}/services`,
      body: {
        name,
        roleAttributes: [],
        configs: configIds,
        encryptionRequired: true,
        tags: { 'service-type': 'simple' },
      },
      status: 201,
      reads: { 'data.id': 'string' },
    });
    const serviceId = service.body.data.id as string;
    for (const type of ['Dial', 'Bind'])
      await zac({
        does: `saves the ${type} policy`,
        method: 'POST',
        path: `${M}/service-policies`,
        body: {
          name: `${name}-${type.toLowerCase()}-policy`,
          type,
          semantic: 'AnyOf',
          serviceRoles: [`@${serviceId}`],
          identityRoles: [`#${attribute}`],
        },
        status: 201,
      });

    // Editing it again: getAssociatedConfigs reads the service's configs and tells them by configTypeId.
    const associated = await zac({
      does: "reads the service's configs",
      method: 'GET',
      path: `${M}/services/${serviceId}/configs/?${page}`,
      status: 200,
      reads: { 'data[].id': 'string', 'data[].configTypeId': 'string', 'data[].data': 'object' },
    });
    expect((associated.body.data as { id: string }[]).map((c) => c.id).sort()).toEqual([...configIds].sort());
    const users = await zac({
      does: "reads the host config's services",
      method: 'GET',
      path: `${M}/configs/${configIds[1]}/services/?${page}`,
      status: 200,
      reads: { 'data[].id': 'string' },
    });
    expect((users.body.data as { id: string }[]).map((s) => s.id)).toEqual([serviceId]);
    // The configs page's type filter (a SELECT on the config type id)
    const hostConfigs = await zac({
      does: 'lists host.v1 configs',
      method: 'GET',
      path: `${M}/configs?filter= type = "NH5p4FpGR" and name = "${name}-host-config"&limit=25&offset=0&sort=name  asc`,
      status: 200,
      reads: { 'data[].configTypeId': 'string' },
    });
    expect((hostConfigs.body.data as { id: string }[]).map((c) => c.id)).toEqual([configIds[1]]);

    // A user the policies select dials it through the router to the TCP server, as the agent does.
    const user = await signedInUser(world, [attribute]);
    const session = await dialSession(user, serviceId);
    const router = session.edgeRouters[0]!;
    const h2 = await routerSession(router.urls.tls!, router.fingerprint);
    try {
      const opened = await openStream(h2, session.token, serviceId, undefined, {
        'postern-dial-protocol': 'tcp',
      });
      expect(opened.status, opened.error).toBe(200);
      const data = randomBytes(4096);
      expect(await roundTrip(opened.stream, data)).toBe(sha256(data));
      opened.stream.close();
    } finally {
      h2.close();
    }
  });

  it('refuses a host.v1 without protocol and without forwardProtocol, naming the field', async () => {
    const answer = await zac({
      does: 'saves a host config with neither protocol nor forwardProtocol',
      method: 'POST',
      path: `${M}/configs`,
      body: {
        name: unique('zac-bad-host'),
        configTypeId: 'NH5p4FpGR',
        data: { address: '127.0.0.1', port: 80 },
      },
      status: 400,
    });
    expect(JSON.stringify(answer.body.error)).toContain('data.protocol');
  });
});

describe("ZAC's router pages", () => {
  it('shows an unenrolled router its enrollment JWT, and answers its related lists', async () => {
    const name = unique('zac-router');
    const created = await zac({
      does: 'creates a router',
      method: 'POST',
      path: `${M}/edge-routers`,
      body: { name, roleAttributes: [`${name}-attr`], isTunnelerEnabled: false, cost: 0 },
      status: 201,
      reads: { 'data.id': 'string' },
    });
    const id = created.body.data.id as string;
    const detail = await zac({
      does: "opens the router's detail",
      method: 'GET',
      path: `${M}/edge-routers/${id}//`,
      status: 200,
      reads: {
        'data.enrollmentJwt': 'string',
        'data.enrollmentToken': 'string',
        'data.enrollmentExpiresAt': 'string',
        'data.enrollmentCreatedAt': 'string',
      },
    });
    const { enrollmentJwt, enrollmentToken } = detail.body.data as {
      enrollmentJwt: string;
      enrollmentToken: string;
    };
    expect(enrollmentToken).toBe(created.body.data.enrollmentToken);
    const claims = JSON.parse(Buffer.from(enrollmentJwt.split('.')[1]!, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(claims).toMatchObject({ em: 'erott', sub: id, jti: enrollmentToken });
    // The list shows it too (edge-routers-page.service.ts reads item.enrollmentJwt for the token cell).
    const listed = await zac({
      does: 'lists routers',
      method: 'GET',
      path: `${M}/edge-routers?filter= name = "${name}"&limit=25&offset=0&sort=name  asc`,
      status: 200,
    });
    expect(listed.body.data[0].enrollmentJwt).toBe(enrollmentJwt);

    const erp = await world.admin.post(`${M}/edge-router-policies`, {
      name: `${name}-erp`,
      semantic: 'AnyOf',
      edgeRouterRoles: [`#${name}-attr`],
      identityRoles: [`#${name}-users`],
    });
    expect(erp.status).toBe(201);
    const serp = await world.admin.post(`${M}/service-edge-router-policies`, {
      name: `${name}-serp`,
      semantic: 'AnyOf',
      edgeRouterRoles: [`@${id}`],
      serviceRoles: [`#${name}-svc`],
    });
    expect(serp.status).toBe(201);
    const svc = await world.admin.post(`${M}/services`, {
      name: `${name}-svc`,
      roleAttributes: [`${name}-svc`],
    });
    const user = await signedInUser(world, [`${name}-users`]);
    const related = async (list: string) =>
      (
        await zac({
          does: `reads the router's ${list}`,
          method: 'GET',
          path: `${M}/edge-routers/${id}/${list}/?${page}`,
          status: 200,
          reads: { data: 'array', 'meta.pagination.totalCount': 'number' },
        })
      ).body.data.map((e: { id: string }) => e.id);
    // Besides the defaults that select every router (`all-identities-all-routers`, ...), only those naming it.
    const unrelated = await world.admin.post(`${M}/edge-router-policies`, {
      name: `${name}-unrelated`,
      semantic: 'AnyOf',
      edgeRouterRoles: ['#not-this-router'],
      identityRoles: ['#all'],
    });
    const policies = await related('edge-router-policies');
    expect(policies).toContain(erp.body.data.id);
    expect(policies).not.toContain(unrelated.body.data.id);
    expect(await related('service-edge-router-policies')).toContain(serp.body.data.id);
    expect(await related('identities')).toContain(user.id);
    expect(await related('services')).toContain(svc.body.data.id);
    const transit = await zac({
      does: 'lists transit routers',
      method: 'GET',
      path: `${M}/transit-routers?limit=25&offset=0&sort=name asc`,
      status: 200,
      reads: { data: 'array', 'meta.pagination.totalCount': 'number' },
    });
    expect(transit.body.data).toEqual([]);
    await zac({
      does: 'asks for an unknown router',
      method: 'GET',
      path: `${M}/edge-routers/no-such-router/identities/?${page}`,
      status: 404,
    });
  });
});

describe("ZAC's identity page", () => {
  it('disables an identity (its tunnel ends within a second) and enables it again', async () => {
    const name = unique('zac-disable');
    const { serviceId, user } = await grantedService(name);
    const session = await dialSession(user, serviceId);
    const router = session.edgeRouters[0]!;
    const h2 = await routerSession(router.urls.tls!, router.fingerprint);
    try {
      const opened = await openStream(h2, session.token, serviceId, undefined, {
        'postern-dial-protocol': 'tcp',
      });
      expect(opened.status, opened.error).toBe(200);
      const data = randomBytes(512);
      expect(await roundTrip(opened.stream, data)).toBe(sha256(data));
      const closed = closedWithin(opened.stream);
      await zac({
        does: 'disables the identity until enabled',
        method: 'POST',
        path: `${M}/identities/${user.id}/disable`,
        body: { durationMinutes: 0 },
        status: 200,
      });
      // The tunnel ends (a generous bound for a loaded machine; the cut itself is immediate).
      expect(await closed).toBeLessThan(5_000);
    } finally {
      h2.close();
    }
    const disabled = await world.admin.get(`${M}/identities/${user.id}`);
    expect(disabled.body.data).toMatchObject({ disabled: true, disabledUntil: null });
    expect(typeof disabled.body.data.disabledAt).toBe('string');
    expect((await user.api.get(`${CLIENT}/current-identity`)).status).toBe(401);
    expect((await user.api.login(user.name, 'user-password', CLIENT)).status).toBe(401);

    // identity-form.component.ts sends `{durationMinutes: 0}` with enable too.
    await zac({
      does: 'enables the identity',
      method: 'POST',
      path: `${M}/identities/${user.id}/enable`,
      body: { durationMinutes: 0 },
      status: 200,
    });
    expect((await world.admin.get(`${M}/identities/${user.id}`)).body.data.disabled).toBe(false);
    expect((await user.api.login(user.name, 'user-password', CLIENT)).status).toBe(200);
  });

  it('ends a timed disable by itself', async () => {
    const { user } = await grantedService(unique('zac-timed'));
    await zac({
      does: 'disables the identity for 5 minutes',
      method: 'POST',
      path: `${M}/identities/${user.id}/disable`,
      body: { durationMinutes: 5 },
      status: 200,
    });
    const shown = (await world.admin.get(`${M}/identities/${user.id}`)).body.data;
    expect(shown.disabled).toBe(true);
    expect(Date.parse(shown.disabledUntil) - Date.parse(shown.disabledAt)).toBe(5 * 60_000);
    expect((await user.api.login(user.name, 'user-password', CLIENT)).status).toBe(401);
    // Five minutes and a second later, by the controller's own clock.
    const ctx = world.bundle.controller.ctx;
    const realNow = ctx.clock.now.bind(ctx.clock);
    ctx.clock.now = () => new Date(realNow().getTime() + 5 * 60_000 + 1_000);
    try {
      expect((await world.admin.get(`${M}/identities/${user.id}`)).body.data.disabled).toBe(false);
      expect((await user.api.login(user.name, 'user-password', CLIENT)).status).toBe(200);
    } finally {
      ctx.clock.now = realNow;
    }
  });

  it('refuses bad disable input naming the field, and changes nothing', async () => {
    const { user } = await grantedService(unique('zac-bad-disable'));
    for (const body of [{}, { durationMinutes: -1 }, { durationMinutes: 'ten' }, { durationMinutes: 1.5 }]) {
      const answer = await zac({
        does: `disables with ${JSON.stringify(body)}`,
        method: 'POST',
        path: `${M}/identities/${user.id}/disable`,
        body,
        status: 400,
      });
      expect(JSON.stringify(answer.body.error)).toContain('durationMinutes');
    }
    const unchanged = (await world.admin.get(`${M}/identities/${user.id}`)).body.data;
    expect(unchanged.disabled).toBe(false);
    // Enabling an identity that is enabled is answered and writes nothing.
    await zac({
      does: 'enables an identity that is not disabled',
      method: 'POST',
      path: `${M}/identities/${user.id}/enable`,
      status: 200,
    });
    expect((await world.admin.get(`${M}/identities/${user.id}`)).body.data.updatedAt).toBe(
      unchanged.updatedAt,
    );
    const me = await world.admin.get(`${CLIENT}/current-identity`);
    const refused = await zac({
      does: 'disables the default admin',
      method: 'POST',
      path: `${M}/identities/${me.body.data.id as string}/disable`,
      body: { durationMinutes: 0 },
      status: 409,
    });
    expect(refused.body.error.code).toBe('CAN_NOT_DISABLE_DEFAULT_ADMIN');
    expect((await world.admin.get(`${M}/identities/${me.body.data.id as string}`)).body.data.disabled).toBe(
      false,
    );
    await zac({
      does: 'disables an unknown identity',
      method: 'POST',
      path: `${M}/identities/no-such-identity/disable`,
      body: { durationMinutes: 0 },
      status: 404,
    });
  });

  it('resets a password login to a updb enrollment (Reset enrollment), refusing bad input unchanged', async () => {
    // ZL/features/reset-enrollment/reset-enrollment.service.ts resetEnrollment: the detail's authenticator id,
    // then ZL/services/ziti-controller-data.service.ts resetEnrollment: POST …/authenticators/<id>/re-enroll
    const user = await signedInUser(world);
    const shown = await zac({
      does: 'opens the identity',
      method: 'GET',
      path: `${M}/identities/${user.id}`,
      status: 200,
      reads: { 'data.authenticators.updb.id': 'string' },
    });
    const authenticatorId = shown.body.data.authenticators.updb.id as string;
    const expiresAt = new Date(Date.now() + 2 * 24 * 3600 * 1000).toISOString();
    for (const [body, status] of [
      [{}, 400],
      [{ expiresAt: 'tomorrow' }, 400],
      [{ expiresAt: new Date(Date.now() - 60_000).toISOString() }, 400],
    ] as const) {
      const answer = await zac({
        does: `resets the enrollment with ${JSON.stringify(body)}`,
        method: 'POST',
        path: `${M}/authenticators/${authenticatorId}/re-enroll`,
        body,
        status,
      });
      expect(JSON.stringify(answer.body.error)).toContain('expiresAt');
    }
    expect((await world.admin.get(`${M}/authenticators/${authenticatorId}`)).status).toBe(200);
    expect((await user.api.get(`${CLIENT}/current-identity`)).status).toBe(200);
    await zac({
      does: 'resets the enrollment of an unknown authenticator',
      method: 'POST',
      path: `${M}/authenticators/no-such-authenticator/re-enroll`,
      body: { expiresAt },
      status: 404,
    });

    const reset = await zac({
      does: 'resets the enrollment',
      method: 'POST',
      path: `${M}/authenticators/${authenticatorId}/re-enroll`,
      body: { expiresAt },
      status: 201,
      reads: { 'data.id': 'string' },
    });
    const enrollments = (await world.admin.get(`${M}/identities/${user.id}/enrollments`)).body.data;
    expect(enrollments).toMatchObject([{ id: reset.body.data.id, method: 'updb', username: user.name }]);
    expect(enrollments[0].expiresAt).toBe(expiresAt);
    // The login is gone, and with it the identity's sessions: it signs in again only by enrolling.
    expect((await world.admin.get(`${M}/authenticators/${authenticatorId}`)).status).toBe(404);
    expect((await user.api.get(`${CLIENT}/current-identity`)).status).toBe(401);
    expect((await world.admin.as(undefined).login(user.name, 'user-password', CLIENT)).status).toBe(401);
  });

  it("answers the identity's routers and its policy advice from the access explanation", async () => {
    const { serviceId, user } = await grantedService(unique('zac-advice'));
    const routers = await zac({
      does: "reads the identity's edge routers",
      method: 'GET',
      path: `${M}/identities/${user.id}/edge-routers/?${page}`,
      status: 200,
      reads: { 'data[].id': 'string', 'data[].name': 'string', 'data[].isOnline': 'boolean' },
    });
    expect(routers.body.data.length).toBeGreaterThan(0);
    const advice = await zac({
      does: 'tests the service (policy advice)',
      method: 'GET',
      path: `${M}/identities/${user.id}/policy-advice/${serviceId}`,
      status: 200,
      reads: {
        'data.isDialAllowed': 'boolean',
        'data.isBindAllowed': 'boolean',
        'data.identityRouterCount': 'number',
        'data.serviceRouterCount': 'number',
        'data.commonRouters': 'array',
      },
    });
    expect(advice.body.data).toMatchObject({
      identityId: user.id,
      serviceId,
      isDialAllowed: true,
      isBindAllowed: false,
    });
    expect(advice.body.data.commonRouters[0]).toMatchObject({ isOnline: true });
    // The same answer as "Why blocked?": no Dial there, no Dial here.
    const why = await world.admin.get(`${M}/identities/${user.id}/services/${serviceId}/access`);
    expect(why.body.data.granted.Dial).toBe(true);
    const other = await signedInUser(world, ['nobody-selects-this']);
    const blocked = await world.admin.get(`${M}/identities/${other.id}/policy-advice/${serviceId}`);
    expect(blocked.body.data).toMatchObject({ isDialAllowed: false, isBindAllowed: false });
    expect((await world.admin.get(`${M}/identities/${user.id}/policy-advice/no-such`)).status).toBe(404);
  });
});

/** A service behind the echo server, a Dial policy for `<tag>-users`, and a signed-in user carrying it. */
async function grantedService(tag: string) {
  const intercept = await world.admin.post(`${M}/configs`, {
    name: `${tag}-intercept`,
    configTypeId: 'intercept.v1',
    data: {
      protocols: ['tcp'],
      addresses: [`${tag}.ziti`],
      portRanges: [{ low: echo.port, high: echo.port }],
    },
  });
  const host = await world.admin.post(`${M}/configs`, {
    name: `${tag}-host`,
    configTypeId: 'host.v1',
    data: { address: '127.0.0.1', port: echo.port, forwardProtocol: true, allowedProtocols: ['tcp'] },
  });
  const service = await world.admin.post(`${M}/services`, {
    name: tag,
    configs: [intercept.body.data.id, host.body.data.id],
  });
  const serviceId = service.body.data.id as string;
  expect(
    (
      await world.admin.post(`${M}/service-policies`, {
        name: `${tag}-dial`,
        type: 'Dial',
        semantic: 'AnyOf',
        serviceRoles: [`@${serviceId}`],
        identityRoles: [`#${tag}-users`],
      })
    ).status,
  ).toBe(201);
  const user = await signedInUser(world, [`${tag}-users`]);
  return { serviceId, user };
}
