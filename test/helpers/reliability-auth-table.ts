/**
 * The authorization matrix: for every documented operation, the request each caller makes and the status
 * each must get. `other` is given only for per-identity resources (edge sessions, MFA), where it aims at
 * the client's resource; `fresh` names callers whose request changes their own state, so they get a new
 * identity and session for it. The key set must equal /openapi.json's operations (the test checks).
 */
import { Api, CLIENT, MGMT, createUser } from './api.js';
import { AUTH_POLICY_BODY, unique, type AuthWorld, type Who } from './reliability-auth-world.js';

export interface MatrixRequest {
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface MatrixRow {
  expect: { none: number; partial: number; client: number; admin: number; other?: number };
  fresh?: Who[];
  request(w: AuthWorld, who: Who): MatrixRequest | Promise<MatrixRequest>;
  /** after `other` tried: the client's resource must be untouched */
  intactAfterOther?: boolean;
}

const fixed = (path: string, body?: unknown) => () => ({ path, body });
const everyone = (status: number) => ({ none: status, partial: status, client: status, admin: status });
const ADMIN_ONLY = (ok: number) => ({ none: 401, partial: 401, client: 401, admin: ok });
const FULL = (ok: number) => ({ none: 401, partial: 401, client: ok, admin: ok });

/** Routes served identically on both APIs under `prefix`. */
function shared(prefix: string): Record<string, MatrixRow> {
  const mfa = `${prefix}/current-identity/mfa`;
  return {
    [`POST ${prefix}/authenticate`]: {
      expect: everyone(200),
      request: async (w) => {
        const name = unique('matrix-login');
        await w.create('identities', { name, type: 'User', isAdmin: false }).then((identityId) =>
          w.create('authenticators', {
            method: 'updb',
            identityId,
            username: name,
            password: 'matrix-password',
          }),
        );
        return {
          path: `${prefix}/authenticate?method=password`,
          body: { username: name, password: 'matrix-password' },
        };
      },
    },
    [`GET ${prefix}/version`]: { expect: everyone(200), request: fixed(`${prefix}/version`) },
    [`GET ${prefix}/current-api-session`]: {
      expect: { none: 401, partial: 200, client: 200, admin: 200 },
      request: fixed(`${prefix}/current-api-session`),
    },
    [`DELETE ${prefix}/current-api-session`]: {
      expect: { none: 401, partial: 200, client: 200, admin: 200 },
      fresh: ['partial', 'client', 'admin'],
      request: fixed(`${prefix}/current-api-session`),
    },
    [`GET ${prefix}/current-identity`]: { expect: FULL(200), request: fixed(`${prefix}/current-identity`) },
    // Nobody here has a verified enrollment: the partial caller has none, the client's is unverified.
    [`POST ${prefix}/authenticate/mfa`]: {
      expect: { none: 401, partial: 409, client: 409, admin: 409 },
      request: fixed(`${prefix}/authenticate/mfa`, { code: '123456' }),
    },
    [`GET ${mfa}`]: {
      expect: { none: 401, partial: 404, client: 200, other: 404, admin: 404 },
      request: fixed(mfa),
    },
    [`POST ${mfa}`]: {
      expect: { none: 401, partial: 201, client: 409, admin: 201 },
      fresh: ['partial', 'admin'],
      request: fixed(mfa, {}),
    },
    [`DELETE ${mfa}`]: {
      expect: { none: 401, partial: 401, client: 200, other: 404, admin: 404 },
      fresh: ['client'],
      intactAfterOther: true,
      request: fixed(mfa),
    },
    [`POST ${mfa}/verify`]: {
      expect: { none: 401, partial: 404, client: 400, other: 404, admin: 404 },
      intactAfterOther: true,
      // `other` brings the client's valid code: it must not verify anything of the client's.
      request: async (w, who) => ({
        path: `${mfa}/verify`,
        body: { code: who === 'other' ? await w.clientCode() : '000000' },
      }),
    },
    [`GET ${mfa}/qr-code`]: {
      expect: { none: 401, partial: 404, client: 200, other: 404, admin: 404 },
      request: fixed(`${mfa}/qr-code`),
    },
    [`GET ${mfa}/recovery-codes`]: {
      expect: { none: 401, partial: 401, client: 404, other: 404, admin: 404 },
      request: async (w) => ({
        path: `${mfa}/recovery-codes`,
        headers: { 'mfa-validation-code': await w.clientCode() },
      }),
    },
    [`POST ${mfa}/recovery-codes`]: {
      expect: { none: 401, partial: 401, client: 404, other: 404, admin: 404 },
      request: async (w) => ({ path: `${mfa}/recovery-codes`, body: { code: await w.clientCode() } }),
    },
  };
}

/** List, create, read, replace, patch and delete of one management collection; writes as admin hit fresh entities. */
/** A signer whose keys are never fetched here (no token is presented): a unique issuer each time. */
const signerBody = () => ({
  name: unique('matrix-jwt'),
  enabled: true,
  issuer: `https://${unique('matrix-idp')}.example.com/`,
  audience: 'matrix-client',
  jwksEndpoint: 'https://idp.example.com/jwks',
});

function crud(
  collection: string,
  body: (w: AuthWorld) => Promise<Record<string, unknown>> | Record<string, unknown>,
  patch: () => Record<string, unknown>,
  existing: (w: AuthWorld) => Promise<string>,
  /** a PUT body, when it differs from a create's (OpenZiti's update bodies may take fewer fields) */
  put: (w: AuthWorld) => Promise<Record<string, unknown>> | Record<string, unknown> = body,
): Record<string, MatrixRow> {
  const base = `${MGMT}/${collection}`;
  const target = async (w: AuthWorld, who: Who) =>
    who === 'admin' ? w.create(collection, await body(w)) : existing(w);
  return {
    [`GET ${base}`]: { expect: ADMIN_ONLY(200), request: fixed(base) },
    [`POST ${base}`]: {
      expect: ADMIN_ONLY(201),
      request: async (w) => ({ path: base, body: await body(w) }),
    },
    [`GET ${base}/{id}`]: {
      expect: ADMIN_ONLY(200),
      request: async (w) => ({ path: `${base}/${await existing(w)}` }),
    },
    [`PUT ${base}/{id}`]: {
      expect: ADMIN_ONLY(200),
      request: async (w, who) => ({ path: `${base}/${await target(w, who)}`, body: await put(w) }),
    },
    [`PATCH ${base}/{id}`]: {
      expect: ADMIN_ONLY(200),
      request: async (w, who) => ({ path: `${base}/${await target(w, who)}`, body: patch() }),
    },
    [`DELETE ${base}/{id}`]: {
      expect: ADMIN_ONLY(200),
      request: async (w, who) => ({ path: `${base}/${await target(w, who)}` }),
    },
  };
}

/** A fresh identity signed in, so ending its API session harms no caller of the matrix. */
async function scratchApiSession(w: AuthWorld): Promise<string> {
  const name = unique('matrix-scratch');
  await createUser(w.admin, name, 'matrix-scratch-password');
  const login = await new Api(w.url).login(name, 'matrix-scratch-password', CLIENT);
  if (login.status !== 200) throw new Error(`scratch login failed: ${JSON.stringify(login.body)}`);
  return login.body.data.id as string;
}

const identityBody = () => ({ name: unique('matrix-identity'), type: 'User', isAdmin: false });
const mgmtUser = async (w: AuthWorld) => w.create('identities', identityBody());
const enrollment = async (w: AuthWorld) =>
  w.create('enrollments', { method: 'ott', identityId: await mgmtUser(w) });

const exceptionBody = (identityId: string) => ({
  identityId,
  postureCheckId: null,
  expiresAt: new Date(Date.now() + 24 * 3600 * 1000).toISOString(),
  reason: 'matrix: laptop replacement on order',
});

export const MATRIX: Record<string, MatrixRow> = {
  'GET /version': { expect: everyone(200), request: fixed('/version') },
  ...shared(CLIENT),
  ...shared(MGMT),

  [`POST ${CLIENT}/posture-response`]: {
    expect: FULL(201),
    request: (w) => ({
      path: `${CLIENT}/posture-response`,
      body: { id: w.ids.check, typeId: 'OS', type: 'Linux', version: '6.8.0' },
    }),
  },
  [`POST ${CLIENT}/posture-response-bulk`]: {
    expect: FULL(201),
    request: (w) => ({
      path: `${CLIENT}/posture-response-bulk`,
      body: [{ id: w.ids.check, typeId: 'OS', type: 'Linux', version: '6.8.0' }],
    }),
  },
  [`GET ${CLIENT}/services`]: { expect: FULL(200), request: fixed(`${CLIENT}/services`) },
  // Only the client's policy selects the service: to anyone else it does not exist.
  [`GET ${CLIENT}/services/{id}`]: {
    expect: { none: 401, partial: 401, client: 200, other: 404, admin: 404 },
    request: (w) => ({ path: `${CLIENT}/services/${w.ids.service}` }),
  },
  [`GET ${CLIENT}/current-api-session/service-updates`]: {
    expect: FULL(200),
    request: fixed(`${CLIENT}/current-api-session/service-updates`),
  },
  [`POST ${CLIENT}/sessions`]: {
    expect: { none: 401, partial: 401, client: 201, other: 400, admin: 400 },
    request: (w) => ({ path: `${CLIENT}/sessions`, body: { serviceId: w.ids.service, type: 'Dial' } }),
  },
  [`GET ${CLIENT}/sessions`]: { expect: FULL(200), request: fixed(`${CLIENT}/sessions`) },
  [`GET ${CLIENT}/sessions/{id}`]: {
    expect: { none: 401, partial: 401, client: 200, other: 404, admin: 404 },
    request: async (w) => ({ path: `${CLIENT}/sessions/${await w.clientSession()}` }),
  },
  [`DELETE ${CLIENT}/sessions/{id}`]: {
    expect: { none: 401, partial: 401, client: 200, other: 404, admin: 404 },
    intactAfterOther: true,
    request: async (w) => ({ path: `${CLIENT}/sessions/${await w.clientSession()}` }),
  },

  ...crud(
    'identities',
    identityBody,
    () => ({ name: unique('matrix-renamed') }),
    async (w) => w.ids.other,
  ),
  ...crud(
    'authenticators',
    async (w) => ({
      method: 'updb',
      identityId: await mgmtUser(w),
      username: unique('matrix-auth'),
      password: 'matrix-password',
    }),
    () => ({ password: 'matrix-password-2' }),
    async (w) => (await w.admin.get(`${MGMT}/authenticators?limit=1`)).body.data[0].id as string,
    () => ({ username: unique('matrix-auth'), password: 'matrix-password' }),
  ),
  ...crud(
    'services',
    () => ({ name: unique('matrix-svc') }),
    () => ({ name: unique('matrix-svc') }),
    async (w) => w.ids.service,
  ),
  ...crud(
    'service-policies',
    () => ({ name: unique('matrix-pol'), type: 'Dial', semantic: 'AnyOf' }),
    () => ({ name: unique('matrix-pol') }),
    async (w) =>
      w.create('service-policies', { name: unique('matrix-pol'), type: 'Dial', semantic: 'AnyOf' }),
  ),
  ...crud(
    'auth-policies',
    () => AUTH_POLICY_BODY(unique('matrix-ap'), false),
    () => ({ name: unique('matrix-ap') }),
    async (w) => w.ids.totpPolicy,
  ),
  ...crud(
    'external-jwt-signers',
    () => signerBody(),
    () => ({ name: unique('matrix-jwt') }),
    async (w) => w.create('external-jwt-signers', signerBody()),
  ),
  ...crud(
    'posture-checks',
    () => ({ name: unique('matrix-chk'), typeId: 'MAC', macAddresses: ['aa:bb:cc:dd:ee:ff'] }),
    () => ({ name: unique('matrix-chk') }),
    async (w) => w.ids.check,
  ),

  ...crud(
    'posture-check-exceptions',
    // A fresh identity each time: two active exceptions for one identity and check would conflict.
    async (w) => exceptionBody(await mgmtUser(w)),
    () => ({ reason: 'matrix: still waiting for the laptop' }),
    async (w) => w.create('posture-check-exceptions', exceptionBody(await mgmtUser(w))),
  ),
  [`GET ${MGMT}/posture-checks/{id}/devices`]: {
    expect: ADMIN_ONLY(200),
    request: async (w) => ({ path: `${MGMT}/posture-checks/${w.ids.check}/devices` }),
  },
  [`GET ${MGMT}/posture-check-status`]: {
    expect: ADMIN_ONLY(200),
    request: fixed(`${MGMT}/posture-check-status`),
  },
  [`GET ${MGMT}/posture-check-exceptions/{id}/history`]: {
    expect: ADMIN_ONLY(200),
    request: async (w) => ({
      path: `${MGMT}/posture-check-exceptions/${await w.create('posture-check-exceptions', exceptionBody(await mgmtUser(w)))}/history`,
    }),
  },

  ...crud(
    'config-types',
    () => ({ name: unique('matrix-ct'), schema: { type: 'object' } }),
    () => ({ name: unique('matrix-ct') }),
    async (w) => w.create('config-types', { name: unique('matrix-ct'), schema: { type: 'object' } }),
  ),
  ...crud(
    'configs',
    () => ({
      name: unique('matrix-cfg'),
      configTypeId: 'host.v1',
      data: { protocol: 'tcp', address: '127.0.0.1', port: 9 },
    }),
    () => ({ name: unique('matrix-cfg') }),
    async (w) =>
      w.create('configs', {
        name: unique('matrix-cfg'),
        configTypeId: 'host.v1',
        data: { protocol: 'tcp', address: '127.0.0.1', port: 9 },
      }),
  ),
  ...crud(
    'edge-routers',
    () => ({ name: unique('matrix-er') }),
    () => ({ name: unique('matrix-er') }),
    async (w) => w.create('edge-routers', { name: unique('matrix-er') }),
  ),
  ...crud(
    'edge-router-policies',
    () => ({ name: unique('matrix-erp'), identityRoles: ['#x'], edgeRouterRoles: ['#y'] }),
    () => ({ name: unique('matrix-erp') }),
    async (w) =>
      w.create('edge-router-policies', {
        name: unique('matrix-erp'),
        identityRoles: ['#x'],
        edgeRouterRoles: ['#y'],
      }),
  ),
  ...crud(
    'service-edge-router-policies',
    () => ({ name: unique('matrix-serp'), serviceRoles: ['#x'], edgeRouterRoles: ['#y'] }),
    () => ({ name: unique('matrix-serp') }),
    async (w) =>
      w.create('service-edge-router-policies', {
        name: unique('matrix-serp'),
        serviceRoles: ['#x'],
        edgeRouterRoles: ['#y'],
      }),
  ),
  [`POST ${MGMT}/edge-routers/{id}/re-enroll`]: {
    expect: ADMIN_ONLY(200),
    request: async (w) => ({
      path: `${MGMT}/edge-routers/${await w.create('edge-routers', { name: unique('matrix-er') })}/re-enroll`,
    }),
  },
  // ZAC's "Reset enrollment": a fresh authenticator each time, since the reset deletes the one it names.
  [`POST ${MGMT}/authenticators/{id}/re-enroll`]: {
    expect: ADMIN_ONLY(201),
    request: async (w) => {
      const id = await w.create('authenticators', {
        method: 'updb',
        identityId: await mgmtUser(w),
        username: unique('matrix-reenroll'),
        password: 'matrix-password',
      });
      return {
        path: `${MGMT}/authenticators/${id}/re-enroll`,
        body: { expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
      };
    },
  },
  // A router redeems its token here with no session: everyone gets the same answer (here, a bad certificate).
  [`POST ${CLIENT}/enroll/erott`]: {
    expect: everyone(400),
    request: fixed(`${CLIENT}/enroll/erott`, { token: 'not-a-token', certPem: 'not a certificate' }),
  },
  // Identity enrollment is public too (the token is the credential): without one, everyone is refused alike.
  ...Object.fromEntries(
    ['enroll?method=ott', 'enroll/ott', 'enroll/updb'].map((path) => [
      `POST ${CLIENT}/${path.split('?')[0]}`,
      { expect: everyone(400), request: fixed(`${CLIENT}/${path}`, { csr: 'no token given' }) },
    ]),
  ),
  [`GET ${CLIENT}/enroll/jwks`]: { expect: everyone(200), request: fixed(`${CLIENT}/enroll/jwks`) },
  [`GET ${MGMT}/enrollments`]: { expect: ADMIN_ONLY(200), request: fixed(`${MGMT}/enrollments`) },
  [`POST ${MGMT}/enrollments`]: {
    expect: ADMIN_ONLY(201),
    request: async (w) => ({
      path: `${MGMT}/enrollments`,
      body: { method: 'ott', identityId: await mgmtUser(w) },
    }),
  },
  [`GET ${MGMT}/enrollments/{id}`]: {
    expect: ADMIN_ONLY(200),
    request: async (w) => ({ path: `${MGMT}/enrollments/${await enrollment(w)}` }),
  },
  [`DELETE ${MGMT}/enrollments/{id}`]: {
    expect: ADMIN_ONLY(200),
    request: async (w) => ({ path: `${MGMT}/enrollments/${await enrollment(w)}` }),
  },
  [`POST ${MGMT}/enrollments/{id}/refresh`]: {
    expect: ADMIN_ONLY(200),
    request: async (w) => ({ path: `${MGMT}/enrollments/${await enrollment(w)}/refresh`, body: {} }),
  },
  [`GET ${MGMT}/identities/{id}/authenticators`]: {
    expect: ADMIN_ONLY(200),
    request: (w) => ({ path: `${MGMT}/identities/${w.ids.client}/authenticators` }),
  },
  // A preview changes nothing: an administrator gets the answer, anyone else nothing.
  [`POST ${MGMT}/posture-checks/preview`]: {
    expect: ADMIN_ONLY(200),
    request: () => ({
      path: `${MGMT}/posture-checks/preview`,
      body: { name: unique('matrix-preview'), typeId: 'MAC', macAddresses: ['aa:bb:cc:dd:ee:ff'] },
    }),
  },
  [`POST ${MGMT}/service-policies/preview`]: {
    expect: ADMIN_ONLY(200),
    request: () => ({
      path: `${MGMT}/service-policies/preview`,
      body: { name: unique('matrix-preview'), type: 'Dial', semantic: 'AnyOf' },
    }),
  },
  [`GET ${MGMT}/identities/{id}/enrollments`]: {
    expect: ADMIN_ONLY(200),
    request: (w) => ({ path: `${MGMT}/identities/${w.ids.client}/enrollments` }),
  },
  // The matrix sends JSON or nothing; an administrator then learns the CSV is missing (400).
  [`POST ${MGMT}/identities/import`]: {
    expect: ADMIN_ONLY(400),
    request: () => ({ path: `${MGMT}/identities/import`, headers: { 'content-type': 'text/csv' } }),
  },
  // Public, as in OpenZiti: a client offers the providers before anyone signs in.
  [`GET ${CLIENT}/external-jwt-signers`]: {
    expect: everyone(200),
    request: fixed(`${CLIENT}/external-jwt-signers`),
  },
  [`GET ${CLIENT}/current-identity/edge-routers`]: {
    expect: FULL(200),
    request: fixed(`${CLIENT}/current-identity/edge-routers`),
  },
  // A session that still owes a code listens too: it must hear that MFA was reset (the events say only "look again").
  [`GET ${CLIENT}/current-api-session/events`]: {
    expect: { none: 401, partial: 200, client: 200, admin: 200 },
    request: fixed(`${CLIENT}/current-api-session/events`),
  },
  [`GET ${MGMT}/posture-check-types`]: {
    expect: ADMIN_ONLY(200),
    request: fixed(`${MGMT}/posture-check-types`),
  },
  [`GET ${MGMT}/posture-check-types/{id}`]: {
    expect: ADMIN_ONLY(200),
    request: fixed(`${MGMT}/posture-check-types/OS`),
  },
  [`GET ${MGMT}/identities/{id}/posture-data`]: {
    expect: ADMIN_ONLY(200),
    request: (w) => ({ path: `${MGMT}/identities/${w.ids.client}/posture-data` }),
  },
  [`GET ${MGMT}/identities/{id}/failed-service-requests`]: {
    expect: ADMIN_ONLY(200),
    request: (w) => ({ path: `${MGMT}/identities/${w.ids.client}/failed-service-requests` }),
  },
  [`GET ${MGMT}/identities/{id}/service-access`]: {
    expect: ADMIN_ONLY(200),
    request: (w) => ({ path: `${MGMT}/identities/${w.ids.client}/service-access` }),
  },
  [`GET ${MGMT}/identities/{id}/services/{serviceId}/access`]: {
    expect: ADMIN_ONLY(200),
    request: (w) => ({ path: `${MGMT}/identities/${w.ids.client}/services/${w.ids.service}/access` }),
  },
  [`GET ${MGMT}/identities/{id}/policy-advice/{serviceId}`]: {
    expect: ADMIN_ONLY(200),
    request: (w) => ({ path: `${MGMT}/identities/${w.ids.client}/policy-advice/${w.ids.service}` }),
  },
  // A fresh identity each time: disabling the matrix's own callers would end their sessions.
  [`POST ${MGMT}/identities/{id}/disable`]: {
    expect: ADMIN_ONLY(200),
    request: async (w) => ({
      path: `${MGMT}/identities/${await w.create('identities', { name: unique('matrix-dis'), type: 'User', isAdmin: false })}/disable`,
      body: { durationMinutes: 0 },
    }),
  },
  [`POST ${MGMT}/identities/{id}/enable`]: {
    expect: ADMIN_ONLY(200),
    request: async (w) => ({
      path: `${MGMT}/identities/${await w.create('identities', { name: unique('matrix-en'), type: 'User', isAdmin: false })}/enable`,
    }),
  },
  [`GET ${MGMT}/transit-routers`]: { expect: ADMIN_ONLY(200), request: fixed(`${MGMT}/transit-routers`) },
  [`GET ${MGMT}/access-summary`]: { expect: ADMIN_ONLY(200), request: fixed(`${MGMT}/access-summary`) },
  [`GET ${MGMT}/failed-service-requests`]: {
    expect: ADMIN_ONLY(200),
    request: fixed(`${MGMT}/failed-service-requests`),
  },
  // The `other` identity has nothing enrolled: an admin reset of nothing is still a 200 (and audited).
  [`DELETE ${MGMT}/identities/{id}/mfa`]: {
    expect: ADMIN_ONLY(200),
    request: (w) => ({ path: `${MGMT}/identities/${w.ids.other}/mfa` }),
  },
  [`GET ${MGMT}/mfa-audit-events`]: { expect: ADMIN_ONLY(200), request: fixed(`${MGMT}/mfa-audit-events`) },
  [`GET ${MGMT}/audit-events`]: { expect: ADMIN_ONLY(200), request: fixed(`${MGMT}/audit-events`) },
  // CSV: the matrix parses any *json* content type as one JSON document, and JSON lines are not one.
  [`GET ${MGMT}/audit-events/export`]: {
    expect: ADMIN_ONLY(200),
    request: fixed(`${MGMT}/audit-events/export?format=csv`),
  },
  // The world's setup created entities through the API: each left an event on the trail.
  [`GET ${MGMT}/audit-events/{id}`]: {
    expect: ADMIN_ONLY(200),
    request: async (w) => {
      const events = await w.admin.request('GET', `${MGMT}/audit-events?limit=1`);
      return { path: `${MGMT}/audit-events/${events.body.data[0].id}` };
    },
  },
  [`GET ${MGMT}/api-sessions`]: { expect: ADMIN_ONLY(200), request: fixed(`${MGMT}/api-sessions`) },
  [`GET ${MGMT}/api-sessions/{id}`]: {
    expect: ADMIN_ONLY(200),
    request: async (w) => ({ path: `${MGMT}/api-sessions/${await scratchApiSession(w)}` }),
  },
  [`DELETE ${MGMT}/api-sessions/{id}`]: {
    expect: ADMIN_ONLY(200),
    request: async (w) => ({ path: `${MGMT}/api-sessions/${await scratchApiSession(w)}` }),
  },
  // Every identity's edge sessions: the client's own is no exception for the client.
  [`GET ${MGMT}/sessions`]: { expect: ADMIN_ONLY(200), request: fixed(`${MGMT}/sessions`) },
  // ZAC's dashboard and the lists Postern has nothing in (informational/): administrators only, as on OpenZiti.
  [`GET ${MGMT}/summary`]: { expect: ADMIN_ONLY(200), request: fixed(`${MGMT}/summary`) },
  ...Object.fromEntries(
    [
      `${MGMT}/terminators`,
      `${MGMT}/cas`,
      `${MGMT}/network-jwts`,
      '/fabric/v1/routers',
      '/fabric/v1/links',
      '/fabric/v1/circuits',
      '/fabric/v1/terminators',
    ].map((path) => [`GET ${path}`, { expect: ADMIN_ONLY(200), request: fixed(path) }]),
  ),
  [`GET ${MGMT}/sessions/{id}`]: {
    expect: ADMIN_ONLY(200),
    request: async (w) => ({ path: `${MGMT}/sessions/${await w.clientSession()}` }),
  },
  [`DELETE ${MGMT}/sessions/{id}`]: {
    expect: ADMIN_ONLY(200),
    request: async (w) => ({ path: `${MGMT}/sessions/${await w.clientSession()}` }),
  },
  ...Object.fromEntries(
    ['identity', 'service', 'posture-check', 'edge-router'].map((kind) => [
      `GET ${MGMT}/${kind}-role-attributes`,
      { expect: ADMIN_ONLY(200), request: fixed(`${MGMT}/${kind}-role-attributes`) },
    ]),
  ),
  ...relatedLists(),
  [`GET ${MGMT}/identities/{id}/mfa-audit-events`]: {
    expect: ADMIN_ONLY(200),
    request: (w) => ({ path: `${MGMT}/identities/${w.ids.client}/mfa-audit-events` }),
  },

  ...crud(
    'webhooks',
    webhookBody,
    () => ({ enabled: false }),
    async (w) => w.create('webhooks', webhookBody()),
  ),
  [`GET ${MGMT}/webhooks/{id}/deliveries`]: {
    expect: ADMIN_ONLY(200),
    request: async (w) => ({
      path: `${MGMT}/webhooks/${await w.create('webhooks', webhookBody())}/deliveries`,
    }),
  },
  [`GET ${MGMT}/webhook-deliveries`]: {
    expect: ADMIN_ONLY(200),
    request: fixed(`${MGMT}/webhook-deliveries?state=dead`),
  },
  // No event is recorded here, so no delivery exists: an administrator is told so, anyone else is refused.
  [`POST ${MGMT}/webhook-deliveries/{id}/redeliver`]: {
    expect: ADMIN_ONLY(404),
    request: fixed(`${MGMT}/webhook-deliveries/no-such-delivery/redeliver`, {}),
  },
  [`GET ${MGMT}/event-export/syslog`]: {
    expect: ADMIN_ONLY(200),
    request: fixed(`${MGMT}/event-export/syslog`),
  },
};

function webhookBody(): Record<string, unknown> {
  return {
    name: unique('matrix-hook'),
    url: 'https://siem.example.com/postern',
    eventTypes: ['*'],
    secret: 'matrix-webhook-secret-0123456789',
  };
}

/** The relation lists (`/service-policies/{id}/identities`, ...): admin only, aimed at an existing owner. */
function relatedLists(): Record<string, MatrixRow> {
  const policy = (w: AuthWorld) =>
    w.create('service-policies', { name: unique('matrix-rel'), type: 'Dial', semantic: 'AnyOf' });
  const service = (w: AuthWorld) => w.create('services', { name: unique('matrix-rel-svc') });
  const router = (w: AuthWorld) => w.create('edge-routers', { name: unique('matrix-rel-er') });
  const config = (w: AuthWorld) =>
    w.create('configs', {
      name: unique('matrix-rel-cfg'),
      configTypeId: 'host.v1',
      data: { protocol: 'tcp', address: '127.0.0.1', port: 9 },
    });
  const rows: [string, string, (w: AuthWorld) => Promise<string>][] = [
    ['service-policies', 'identities', policy],
    ['service-policies', 'services', policy],
    ['service-policies', 'posture-checks', policy],
    ['identities', 'service-policies', async (w) => w.ids.client],
    ['identities', 'services', async (w) => w.ids.client],
    ['services', 'service-policies', service],
    ['services', 'identities', service],
    ['services', 'configs', service],
    ['configs', 'services', config],
    ['edge-routers', 'identities', router],
    ['edge-routers', 'services', router],
    ['edge-routers', 'edge-router-policies', router],
    ['edge-routers', 'service-edge-router-policies', router],
    ['identities', 'edge-routers', async (w) => w.ids.client],
  ];
  return Object.fromEntries(
    rows.map(([owner, relation, id]) => [
      `GET ${MGMT}/${owner}/{id}/${relation}`,
      {
        expect: ADMIN_ONLY(200),
        request: async (w: AuthWorld) => ({ path: `${MGMT}/${owner}/${await id(w)}/${relation}` }),
      },
    ]),
  );
}
