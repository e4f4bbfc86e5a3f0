/**
 * The requests OpenZiti's console (ZAC 4.5.2, github.com/openziti/ziti-console, under projects/; ZL =
 * ziti-console-lib/src/lib) sends for its dashboard, its sessions, terminators, certificate authorities, JWT
 * signers and network JWT pages and its topology views, replayed as it puts them on the wire
 * (test/helpers/openziti-replay.ts) against a real controller started with `--cors-origin`, from ZAC's
 * origin: every answer must carry the CORS grant a browser needs to hand it to the page, and each non-simple
 * request is preceded by the preflight Chromium sends. The companion of openziti-clients-replay.test.ts
 * (identities, services, policies, posture checks, MFA).
 *
 * ZAC's list pages ask `<type>?limit=<n>&offset=<m>&sort=<field> <order>` (ZL/services/
 * ziti-controller-data.service.ts getUrlFilter, with ZL/shared/list-page-service.class.ts DEFAULT_PAGING:
 * 50 rows, or the data service's own: 100), and its topology views `…/v1//<type>?limit=1000` (call():
 * prefix + "/" + a path that starts with "/").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, CLIENT, MGMT, createUser } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';
import { browserUrl, replay, send, type Step } from '../helpers/openziti-replay.js';

/** Where ZAC is served from when it is not on the controller's origin (ZAC's own `ng serve` default). */
const ZAC_ORIGIN = 'http://localhost:4200';

let tc: TestController;
let zacToken = '';

beforeAll(async () => {
  tc = await startTestController({ corsOrigins: [ZAC_ORIGIN] });
});
afterAll(() => tc?.dispose());

type Send = Omit<Step, 'headers' | 'does' | 'method'> & {
  does: string;
  method?: Step['method'];
  headers?: Record<string, string>;
};

/**
 * One ZAC request from its origin, with the headers of its interceptor (app-ziti-console/src/app/
 * interceptors/ziti-api.interceptor.ts: `zt-session` and `content-type` on every call), after the preflight
 * a browser sends for it (those headers make every call a non-simple one), and the grant checked on both.
 */
async function zac(s: Send) {
  const headers = s.headers ?? { 'content-type': 'application/json', 'zt-session': zacToken };
  const path = browserUrl(s.path);
  const method = s.method ?? 'GET';
  const preflight = await send(tc.url, 'OPTIONS', path, {
    origin: ZAC_ORIGIN,
    'access-control-request-method': method,
    'access-control-request-headers': Object.keys(headers).sort().join(','),
  });
  expect(preflight.status, `preflight of ${s.does}`).toBe(204);
  expect(preflight.headers['access-control-allow-origin']).toBe(ZAC_ORIGIN);
  for (const header of Object.keys(headers))
    expect(String(preflight.headers['access-control-allow-headers'])).toContain(header);
  expect(String(preflight.headers['access-control-allow-methods'])).toContain(method);
  const answer = await replay(tc.url, {
    ...s,
    method,
    path,
    does: `ZAC ${s.does}`,
    headers: { ...headers, origin: ZAC_ORIGIN },
  });
  expect(answer.headers['access-control-allow-origin'], s.does).toBe(ZAC_ORIGIN);
  return answer;
}

const EMPTY_PAGE = { data: 'array', 'meta.pagination.totalCount': 'number' } as const;

describe('ZAC from another origin (--cors-origin)', () => {
  it('reads the version and signs in across origins', async () => {
    // ZL/services/settings.service.ts initApiVersions: no zt-session yet
    await zac({
      does: 'reads the API versions',
      path: `${MGMT}/version`,
      headers: { accept: 'application/json' },
      status: 200,
      reads: { 'data.apiVersions.edge-management.v1.path': 'string' },
    });
    // app-ziti-console/src/app/login/login.component.ts: the sign-in page lists the JWT signers (client API)
    await zac({
      does: 'lists the sign-in providers before signing in',
      path: `${CLIENT}/external-jwt-signers?limit=100&offset=0&sort=name asc`,
      headers: { 'content-type': 'application/json' },
      status: 200,
      reads: EMPTY_PAGE,
    });
    // app-ziti-console/src/app/login/controller-login.service.ts standardObserveLogin
    const login = await zac({
      does: 'signs in',
      method: 'POST',
      path: `${MGMT}/authenticate?method=password`,
      headers: { 'content-type': 'application/json' },
      body: { username: 'admin', password: ADMIN_PASSWORD },
      status: 200,
      reads: { 'data.token': 'string' },
    });
    zacToken = login.body.data.token;
  });

  it('shows the dashboard’s counts (ZL/pages/geolocate/geolocate.component.ts loadEntityCounts)', async () => {
    const admin = new Api(tc.url, zacToken);
    await admin.post(`${MGMT}/services`, { name: 'zac-dash-svc' });
    await admin.post(`${MGMT}/edge-routers`, { name: 'zac-dash-router' });
    const summary = await zac({
      does: 'reads the summary',
      path: `${MGMT}/summary?limit=1&offset=0&sort=name asc`,
      status: 200,
      reads: {
        'data.identities': 'number',
        'data.services': 'number',
        'data.configs': 'number',
        'data.servicePolicies': 'number',
        'data.sessions': 'number',
      },
    });
    // read as data['routers.edge']: a key with a dot in it
    expect(summary.body.data['routers.edge']).toBe(1);
    expect(summary.body.data.services).toBe(1);
    expect(summary.body.data.identities).toBeGreaterThanOrEqual(1);
  });

  it('lists sessions as its Sessions page does (ZL/pages/sessions/sessions-page.service.ts)', async () => {
    // A user with a service to dial, and one edge session of it.
    const admin = new Api(tc.url, zacToken);
    await createUser(admin, 'zac-session-user', 'zac-session-password', { roleAttributes: ['zac-users'] });
    const service = await admin.post(`${MGMT}/services`, { name: 'zac-session-svc' });
    await admin.post(`${MGMT}/service-policies`, {
      name: 'zac-session-dial',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: ['#zac-users'],
      serviceRoles: [`@${service.body.data.id}`],
    });
    const user = new Api(tc.url);
    await user.login('zac-session-user', 'zac-session-password', CLIENT);
    const made = await user.post(`${CLIENT}/sessions`, { serviceId: service.body.data.id, type: 'Dial' });
    expect(made.status).toBe(201);
    const sessions = await zac({
      does: 'lists sessions',
      path: `${MGMT}/sessions?limit=50&offset=0&sort=id asc`,
      status: 200,
      reads: {
        'data[].id': 'string',
        'data[].service.name': 'string',
        'data[].service.id': 'string',
        'data[].type': 'string',
        'data[].createdAt': 'string',
        'data[].edgeRouters': 'array',
        'meta.pagination.totalCount': 'number',
      },
    });
    expect(sessions.body.data).toHaveLength(1);
    // ZL/features/projectable-forms/session/session-form.component.ts: its detail
    await zac({
      does: 'opens a session',
      path: `${MGMT}/sessions/${sessions.body.data[0].id}//`,
      status: 200,
      reads: { 'data.id': 'string', 'data.service.name': 'string' },
    });
  });

  it('shows empty Terminators, Certificate Authorities, JWT Signers and network JWT pages', async () => {
    // ZL/pages/terminators/terminators-page.service.ts (sorted by address)
    await zac({
      does: 'lists terminators',
      path: `${MGMT}/terminators?limit=50&offset=0&sort=address asc`,
      status: 200,
      reads: EMPTY_PAGE,
    });
    // ZL/pages/certificate-authorities/certificate-authorities-page.service.ts; the identity form's CA picker
    await zac({
      does: 'lists CAs',
      path: `${MGMT}/cas?limit=50&offset=0&sort=name asc`,
      status: 200,
      reads: EMPTY_PAGE,
    });
    await zac({
      does: 'lists CAs for the identity form',
      path: `${MGMT}/cas?limit=100&offset=0&sort=name asc`,
      status: 200,
      reads: EMPTY_PAGE,
    });
    // ZL/pages/jwt-signers/jwt-signers-page.service.ts; the auth policy form's signer picker (`total: -1`)
    await zac({
      does: 'lists JWT signers',
      path: `${MGMT}/external-jwt-signers?limit=50&offset=0&sort=name asc`,
      status: 200,
      reads: EMPTY_PAGE,
    });
    await zac({
      does: 'lists every JWT signer',
      path: `${MGMT}/external-jwt-signers?limit=-1&offset=0&sort=name asc`,
      status: 200,
      reads: EMPTY_PAGE,
    });
    // ZL/shared/list-page-service.class.ts getNetworkJwt (the data service's default paging)
    await zac({
      does: 'reads the network JWTs',
      path: `${MGMT}/network-jwts?limit=100&offset=0&sort=name asc`,
      status: 200,
      reads: EMPTY_PAGE,
    });
  });

  it('draws its topology views from the edge and fabric lists (ZL/pages/geolocate/services/map-data.service.ts)', async () => {
    const routers = await zac({
      does: 'lists every edge router for the map',
      path: `${MGMT}/edge-routers?limit=1000&offset=0&sort=name asc`,
      status: 200,
      reads: { 'data[].id': 'string', 'data[].name': 'string' },
    });
    // a limit above 500 is a full page, as OpenZiti clamps it
    expect(routers.body.meta.pagination.limit).toBe(500);
    for (const type of ['routers', 'links', 'circuits', 'terminators'])
      await zac({
        does: `lists fabric ${type}`,
        path: `/fabric/v1//${type}?limit=1000`,
        status: 200,
        reads: EMPTY_PAGE,
      });
    await zac({
      does: 'lists terminators with their identities',
      path: `${MGMT}//terminators?limit=1000&filter=identity`,
      status: 200,
      reads: EMPTY_PAGE,
    });
  });
});
