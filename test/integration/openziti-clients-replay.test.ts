/**
 * The requests OpenZiti's own clients send for identities, services, service policies, posture checks and MFA,
 * replayed against a real controller as those clients put them on the wire (test/helpers/openziti-replay.ts),
 * each checked for the status the client accepts and every field it reads next, of the type it reads it as;
 * follow-up requests use the ids the answers gave. The facts come from the clients' public source, named at
 * each step:
 *
 * - ZAC, the admin console: github.com/openziti/ziti-console, under projects/ (ZL = ziti-console-lib/src/lib).
 *   It builds its query strings by hand and never encodes them (the browser does), puts `zt-session`,
 *   `content-type: application/json` and `accept: application/json` on every request, asks for an entity as
 *   `…/<type>/<id>//` and for its related lists as `…/<type>/<id>/<list>/?limit=…`.
 * - The `ziti edge` CLI: github.com/openziti/ziti, ziti/cmd/edge/ and ziti/util/rest.go. Its requests carry
 *   `Content-Type: application/json` and `zt-session` (ziti/util/identities.go NewRequest); queries are Go's
 *   `url.Values.Encode()`.
 * - The Go SDK, as the CLI's login and OpenZiti's Go applications use it: github.com/openziti/sdk-golang
 *   (edge-apis/, ziti/client.go, ziti/ziti.go), a go-swagger client: `Accept: application/json`, and
 *   `Content-Type: application/json` on every POST, PUT, PATCH and DELETE even without a body
 *   (go-openapi/runtime client/request.go buildHTTP).
 *
 * OpenZiti's Node SDK cannot be installed here (its binaries are downloaded from elsewhere), so it is not
 * replayed. Where Postern answers otherwise on purpose, the step says which row of
 * docs/OPENZITI-COMPATIBILITY.md it follows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, CLIENT, MGMT, createUser } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';
import { AuthenticatorApp, FakeClock } from '../helpers/mfa.js';
import {
  browserUrl,
  goQuery,
  readProblems,
  replay,
  type Answer,
  type Kind,
  type Step,
} from '../helpers/openziti-replay.js';

let tc: TestController;
let clock: FakeClock;
/** ZAC's session token (legacy `zt-session`), and the CLI's */
let zacToken = '';
let cliToken = '';

beforeAll(async () => {
  tc = await startTestController();
});
afterAll(() => tc?.dispose());

type Send = Omit<Step, 'headers' | 'does'> & { does: string; headers?: Record<string, string> };

/**
 * ZAC: ZL/services/ziti-controller-data.service.ts, with the headers of its interceptor
 * (app-ziti-console/src/app/interceptors/ziti-api.interceptor.ts addAuthToken).
 */
const zac = (s: Send) =>
  replay(tc.url, {
    ...s,
    does: `ZAC ${s.does}`,
    path: browserUrl(s.path),
    headers: s.headers ?? {
      accept: 'application/json',
      'content-type': 'application/json',
      'zt-session': zacToken,
    },
  });
/** The `ziti edge` CLI (ziti/util/rest.go ControllerList/Create/Update/Delete). */
const cli = (s: Send) =>
  replay(tc.url, {
    ...s,
    does: `ziti edge ${s.does}`,
    headers: s.headers ?? { 'content-type': 'application/json', 'zt-session': cliToken },
  });
/** The Go SDK's go-swagger client: Content-Type on every method that may carry a body, even without one. */
const sdk = (token: string, s: Send) =>
  replay(tc.url, {
    ...s,
    does: `Go SDK ${s.does}`,
    headers: {
      accept: 'application/json',
      ...(s.method === 'GET' ? {} : { 'content-type': 'application/json' }),
      ...(token ? { 'zt-session': token } : {}),
      ...s.headers,
    },
  });

const M = MGMT;
const idOf = (answer: Answer) => answer.body.data.id as string;
const namesOf = (answer: Pick<Answer, 'body'>) => (answer.body.data as { name: string }[]).map((e) => e.name);
/** What the go SDK sends about itself at login (ziti/sdkinfo/host.go GetSdkInfo; empty fields are omitted). */
const envInfo = { arch: 'amd64', os: 'linux', osRelease: '6.8.0-45-generic', osVersion: '#45-Ubuntu SMP' };
const sdkInfo = { type: 'ziti-sdk-golang', version: 'v2.0.0' };

describe('ZAC, the OpenZiti admin console', () => {
  const ids: Record<string, string> = {};

  it('finds the controller and signs in with a password, the legacy way, as no OIDC is advertised', async () => {
    // ZL/services/settings.service.ts initApiVersions; settings-service.class.ts oidcAvailable
    const version = await zac({
      does: 'reads the API versions',
      method: 'GET',
      path: `${M}/version?rejectUnauthorized=false`,
      headers: { accept: 'application/json' },
      status: 200,
      reads: {
        'data.apiVersions.edge.v1': 'object',
        'data.apiVersions.edge-management.v1.path': 'string',
        'data.version': 'string',
        'data.capabilities': 'array',
      },
    });
    expect(version.body.data.apiVersions['edge-management'].v1.path).toBe(M);
    expect(version.body.data.capabilities).not.toContain('OIDC_AUTH');

    // app-ziti-console/src/app/login/controller-login.service.ts standardObserveLogin, handleLoginResponse
    const login = await zac({
      does: 'signs in',
      method: 'POST',
      path: `${M}/authenticate?method=password`,
      headers: { 'content-type': 'application/json' },
      body: { username: 'admin', password: ADMIN_PASSWORD },
      status: 200,
      reads: { 'data.token': 'string', 'data.expiresAt': 'string', 'data.expirationSeconds': 'number' },
    });
    zacToken = login.body.data.token;
    // ZL/services/settings.service.ts hasValidJwtToken: a token that is no JWT goes back as `zt-session`
    expect(zacToken.split('.')).not.toHaveLength(3);

    // controller-login.service.ts discoverAndAuthenticateHAControllers: no fabric API, so no cluster to find
    await zac({
      does: 'looks for HA peers',
      method: 'GET',
      path: `${M}/version`,
      headers: { authorization: `Bearer ${zacToken}` },
      status: 200,
      reads: { 'data.apiVersions.fabric': 'absent', 'data.peerControllers': 'absent' },
    });

    // ZL/services/management-permissions.service.ts fetchCurrentIdentity
    const me = await zac({
      does: 'reads its own permissions',
      method: 'GET',
      path: `${M}/current-identity`,
      status: 200,
      reads: { 'data.isAdmin': 'boolean', 'data.permissions': 'array' },
    });
    expect(me.body.data.isAdmin).toBe(true);
  });

  it('creates an identity with its form, opens it, edits it and lists what selects it', async () => {
    // ZL/features/projectable-forms/identity/identity-form.service.ts save with models/identity.ts
    const form = {
      name: 'zac-laptop',
      type: 'Device',
      appData: {},
      isAdmin: false,
      roleAttributes: ['zac-sales'],
      authPolicyId: 'default',
      externalId: '',
      defaultHostingCost: 0,
      defaultHostingPrecedence: 'default',
      tags: {},
      enrollment: { ott: true },
    };
    ids.identity = idOf(
      await zac({
        does: 'creates an identity',
        method: 'POST',
        path: `${M}/identities`,
        body: form,
        status: 201,
        reads: { 'data.id': 'string' },
      }),
    );
    // a second one from the same form: an empty externalId is no external id
    ids.phone = idOf(
      await zac({
        does: 'creates another identity',
        method: 'POST',
        path: `${M}/identities`,
        body: { ...form, name: 'zac-phone', roleAttributes: [] },
        status: 201,
        reads: { 'data.id': 'string' },
      }),
    );

    // ZL/features/projectable-forms/projectable-form.class.ts ngOnInit: getSubdata(type, id, '')
    const opened = await zac({
      does: 'opens the identity',
      method: 'GET',
      path: `${M}/identities/${ids.identity}//`,
      status: 200,
      reads: {
        'data.id': 'string',
        'data.name': 'string',
        'data.type.id': 'string',
        'data.roleAttributes': 'string[]',
        'data.authPolicyId': 'string',
        'data.isMfaEnabled': 'boolean',
        'data.tags': 'object',
      },
    });
    // ZL/features/projectable-forms/identity/identity-form.component.ts: its services and policies
    for (const list of ['services', 'service-policies'])
      await zac({
        does: `lists the identity's ${list}`,
        method: 'GET',
        path: `${M}/identities/${ids.identity}/${list}/?limit=100&offset=0&sort=name asc`,
        status: 200,
        reads: { data: 'array', 'meta.pagination.totalCount': 'number' },
      });

    // identity-form.service.ts getIdentityDataModel on update: the model's fields from the opened entity,
    // `type` as its id, no enrollment
    const d = opened.body.data;
    await zac({
      does: 'saves the edited identity',
      method: 'PATCH',
      path: `${M}/identities/${ids.identity}`,
      body: {
        name: 'zac-laptop-2',
        type: d.type.id,
        appData: d.appData,
        isAdmin: d.isAdmin,
        roleAttributes: [...d.roleAttributes, 'zac-emea'],
        authPolicyId: d.authPolicyId,
        externalId: d.externalId,
        defaultHostingCost: d.defaultHostingCost,
        defaultHostingPrecedence: d.defaultHostingPrecedence,
        tags: d.tags,
      },
      status: 200,
    });
    const reopened = await zac({
      does: 'reopens the identity',
      method: 'GET',
      path: `${M}/identities/${ids.identity}//`,
      status: 200,
    });
    expect(reopened.body.data).toMatchObject({
      name: 'zac-laptop-2',
      type: { id: 'Device' },
      roleAttributes: ['zac-sales', 'zac-emea'],
    });

    // ZL/services/ziti-data.service.ts getErrorMessage reads error.cause.message, then error.message
    await zac({
      does: 'is told why a duplicate name is refused',
      method: 'POST',
      path: `${M}/identities`,
      body: { ...form, name: 'zac-phone' },
      status: 400,
      reads: { 'error.code': 'string', 'error.message': 'string', 'error.cause.message': 'string' },
    });
  });

  it('lists identities as its table does: paged, sorted, filtered by text, attribute, flag and date', async () => {
    // ZL/pages/identities/identities-page.service.ts initTableColumns; the query from
    // ziti-controller-data.service.ts getUrlFilter with list-page-service.class.ts DEFAULT_PAGING (50, name asc)
    const table = await zac({
      does: 'loads the identities table',
      method: 'GET',
      path: `${M}/identities?limit=50&offset=0&sort=name asc`,
      status: 200,
      reads: {
        data: 'array+',
        'data[].id': 'string',
        'data[].name': 'string',
        'data[].roleAttributes': 'string[]',
        'data[].type.name': 'string',
        'data[].isAdmin': 'boolean',
        'data[].createdAt': 'string',
        'data[].isMfaEnabled': 'boolean',
        'data[].hasApiSession': 'boolean',
        'data[].hasEdgeRouterConnection': 'boolean',
        'data[].authenticators': 'object',
        'data[].envInfo': 'object',
        'data[].sdkInfo': 'object',
        'meta.pagination.totalCount': 'number',
      },
    });
    const names = namesOf(table);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['Default Admin', 'zac-laptop-2', 'zac-phone']));

    // a column header clicked: sort=<column> <order>
    const byDate = await zac({
      does: 'sorts by creation, newest first',
      method: 'GET',
      path: `${M}/identities?limit=50&offset=0&sort=createdAt desc`,
      status: 200,
    });
    const dates = (byDate.body.data as { createdAt: string }[]).map((i) => i.createdAt);
    expect(dates).toEqual([...dates].sort().reverse());
    expect(namesOf(byDate).at(-1)).toBe('Default Admin');

    // filters: TEXTINPUT (icontains), ATTRIBUTE (anyOf … or anyOf …), SELECT on a boolean, DATETIME
    const filtered = async (does: string, filter: string) =>
      namesOf(
        await zac({
          does,
          method: 'GET',
          path: `${M}/identities?filter= ${filter}&limit=50&offset=0&sort=name  asc`,
          status: 200,
          reads: { data: 'array', 'meta.pagination.totalCount': 'number' },
        }),
      );
    expect(await filtered('searches by name', 'name icontains "ZAC-LAP"')).toEqual(['zac-laptop-2']);
    expect(
      await filtered(
        'filters by role attribute',
        'anyOf(roleAttributes) = "zac-emea" or anyOf(roleAttributes) = "nobody"',
      ),
    ).toEqual(['zac-laptop-2']);
    expect(await filtered('filters administrators', 'isAdmin = true')).toEqual(['Default Admin']);
    expect(
      await filtered(
        'filters by creation date',
        'createdAt >= datetime(2000-01-01T00:00:00.000Z) and createdAt <= datetime(2999-01-01T00:00:00.000Z)',
      ),
    ).toEqual(expect.arrayContaining(['zac-laptop-2', 'zac-phone']));

    // ZL/pages/identities/identities-page.service.ts getIdentityRoleAttributes (ziti-data.service.ts DEFAULT_PAGING)
    const attributes = await zac({
      does: 'lists identity role attributes',
      method: 'GET',
      path: `${M}/identity-role-attributes?limit=100&offset=0&sort=name asc`,
      status: 200,
      reads: { data: 'string[]' },
    });
    expect(attributes.body.data).toEqual(expect.arrayContaining(['zac-sales', 'zac-emea']));

    // ZL/pages/service-policies/service-policies-page.service.ts getIdentityNamedAttributes: total -1.
    // Deliberate difference "`limit=-1`": at most one page of 500, with the total.
    const all = await zac({
      does: 'asks for every identity',
      method: 'GET',
      path: `${M}/identities?limit=-1&offset=0&sort=name asc`,
      status: 200,
      reads: { 'data[].id': 'string', 'data[].name': 'string', 'meta.pagination.totalCount': 'number' },
    });
    expect(all.body.data).toHaveLength(all.body.meta.pagination.totalCount);
    expect(all.body.meta.pagination.limit).toBe(500);
  });

  it('creates a service with its form, opens and edits it', async () => {
    // ZL/features/projectable-forms/service/service-form.service.ts save with models/service.ts
    const form = {
      name: 'zac-crm',
      encryptionRequired: true,
      terminatorStrategy: '',
      roleAttributes: ['zac-apps'],
      tags: {},
      configs: [],
      maxIdleTimeMillis: 0,
    };
    ids.service = idOf(
      await zac({
        does: 'creates a service',
        method: 'POST',
        path: `${M}/services`,
        body: form,
        status: 201,
        reads: { 'data.id': 'string' },
      }),
    );
    const opened = await zac({
      does: 'opens the service it saved',
      method: 'GET',
      path: `${M}/services/${ids.service}//`,
      status: 200,
      reads: {
        'data.name': 'string',
        'data.roleAttributes': 'string[]',
        'data.encryptionRequired': 'boolean',
        'data.terminatorStrategy': 'string',
        'data.configs': 'array',
        'data.maxIdleTimeMillis': 'number',
      },
    });
    const d = opened.body.data;
    await zac({
      does: 'saves the edited service',
      method: 'PATCH',
      path: `${M}/services/${ids.service}`,
      body: {
        name: d.name,
        encryptionRequired: d.encryptionRequired,
        terminatorStrategy: d.terminatorStrategy,
        roleAttributes: ['zac-apps', 'zac-tier1'],
        tags: d.tags,
        configs: d.configs,
        maxIdleTimeMillis: d.maxIdleTimeMillis,
      },
      status: 200,
    });
    // ZL/pages/services/services-page.service.ts initTableColumns, getServiceRoleAttributes
    const table = await zac({
      does: 'loads the services table',
      method: 'GET',
      path: `${M}/services?limit=50&offset=0&sort=name asc`,
      status: 200,
      reads: {
        'data[].name': 'string',
        'data[].roleAttributes': 'string[]',
        'data[].createdAt': 'string',
        'meta.pagination.totalCount': 'number',
      },
    });
    expect(table.body.data.find((s: { id: string }) => s.id === ids.service).roleAttributes).toEqual([
      'zac-apps',
      'zac-tier1',
    ]);
    const attributes = await zac({
      does: 'lists service role attributes',
      method: 'GET',
      path: `${M}/service-role-attributes?limit=100&offset=0&sort=name asc`,
      status: 200,
      reads: { data: 'string[]' },
    });
    expect(attributes.body.data).toEqual(expect.arrayContaining(['zac-apps', 'zac-tier1']));
  });

  it('creates one posture check of each type with its form, opens and edits it', async () => {
    // ZL/features/projectable-forms/posture-check/posture-check-form.component.ts getPostureCheckTypes
    // (it adds MFA itself) and the role attributes (projectable-form.class.ts getRoleAttributes)
    await zac({
      does: 'lists posture check types',
      method: 'GET',
      path: `${M}/posture-check-types?limit=100&offset=0&sort=name asc`,
      status: 200,
      reads: { data: 'array+', 'data[].id': 'string', 'data[].name': 'string' },
    });
    await zac({
      does: 'lists posture check role attributes',
      method: 'GET',
      path: `${M}/posture-check-role-attributes?limit=100&offset=0&sort=name asc`,
      status: 200,
      reads: { data: 'string[]' },
    });

    // posture-check-form.service.ts save: every field of models/posture-check.ts, whatever the type, with the
    // form's values for its own
    const model = {
      semantic: 'AllOf',
      roleAttributes: ['zac-healthy'],
      domains: [],
      macAddresses: [],
      operatingSystems: [],
      processes: [{ hashes: [], osType: '', path: '', signerFingerprints: [] }],
      process: { hashes: [], osType: '', path: '', signerFingerprint: '' },
      promptOnWake: false,
      promptOnUnlock: false,
      timeoutSeconds: 0,
      tags: {},
    };
    const forms: [string, Record<string, unknown>, Record<string, Kind>][] = [
      ['MAC', { macAddresses: ['AA:BB:CC:DD:EE:01'] }, { 'data.macAddresses': 'string[]' }],
      [
        'OS',
        // getOSVersionData: `>=min <=max`
        { operatingSystems: [{ type: 'Linux', versions: ['>=5.0.0 <=7.0.0'] }] },
        { 'data.operatingSystems[].type': 'string', 'data.operatingSystems[].versions': 'string[]' },
      ],
      ['DOMAIN', { domains: ['CORP'] }, { 'data.domains': 'string[]' }],
      [
        'MFA',
        { promptOnWake: true },
        { 'data.timeoutSeconds': 'number', 'data.promptOnWake': 'boolean', 'data.promptOnUnlock': 'boolean' },
      ],
      [
        'PROCESS',
        { process: { hashes: [], osType: 'Linux', path: '/usr/bin/zac-edr', signerFingerprint: '' } },
        { 'data.process.path': 'string', 'data.process.osType': 'string', 'data.process.hashes': 'array' },
      ],
      [
        'PROCESS_MULTI',
        { processes: [{ hashes: [], osType: 'Linux', path: '/usr/bin/zac-edr', signerFingerprints: [] }] },
        { 'data.semantic': 'string', 'data.processes[].path': 'string', 'data.processes[].osType': 'string' },
      ],
    ];
    for (const [typeId, fields, reads] of forms) {
      const id = idOf(
        await zac({
          does: `creates a ${typeId} check`,
          method: 'POST',
          path: `${M}/posture-checks`,
          body: { ...model, name: `zac-${typeId.toLowerCase()}`, typeId, ...fields },
          status: 201,
          reads: { 'data.id': 'string' },
        }),
      );
      ids[typeId] = id;
      // posture-check-form.service.ts save then opens what it saved
      const opened = await zac({
        does: `opens the ${typeId} check`,
        method: 'GET',
        path: `${M}/posture-checks/${id}//`,
        status: 200,
        reads: {
          'data.name': 'string',
          'data.typeId': 'string',
          'data.roleAttributes': 'string[]',
          ...reads,
        },
      });
      expect(opened.body.data.typeId).toBe(typeId);
      // editing sends the model's fields from the opened check, its `id` among them; entityUpdated shows MAC
      // addresses as AA:BB:…
      const d = opened.body.data;
      if (typeId === 'MAC')
        d.macAddresses = d.macAddresses.map((a: string) =>
          a
            .match(/.{1,2}/g)!
            .join(':')
            .toUpperCase(),
        );
      const edited = Object.fromEntries(
        Object.keys({ name: 1, id: 1, typeId: 1, ...model })
          .filter((k) => d[k] !== undefined)
          .map((k) => [k, d[k]]),
      );
      await zac({
        does: `saves the edited ${typeId} check`,
        method: 'PATCH',
        path: `${M}/posture-checks/${id}`,
        body: { ...edited, roleAttributes: ['zac-healthy', 'zac-strict'] },
        status: 200,
      });
    }
    const checks = await zac({
      does: 'loads the posture checks table',
      method: 'GET',
      path: `${M}/posture-checks?filter= name icontains "zac-"&limit=50&offset=0&sort=name  asc`,
      status: 200,
      reads: {
        'data[].name': 'string',
        'data[].typeId': 'string',
        'data[].createdAt': 'string',
        'data[].roleAttributes': 'string[]',
      },
    });
    expect(namesOf(checks)).toEqual([
      'zac-domain',
      'zac-mac',
      'zac-mfa',
      'zac-os',
      'zac-process',
      'zac-process_multi',
    ]);
    for (const check of checks.body.data) expect(check.roleAttributes).toEqual(['zac-healthy', 'zac-strict']);
    // the form's default timeout of 0: deliberate difference "MFA check `timeoutSeconds`" (0 means none, kept as -1)
    const mfa = checks.body.data.find((c: { typeId: string }) => c.typeId === 'MFA');
    expect(mfa).toMatchObject({ timeoutSeconds: -1, promptOnWake: true, promptOnUnlock: false });
    expect(checks.body.data.find((c: { typeId: string }) => c.typeId === 'OS').operatingSystems).toEqual([
      { type: 'Linux', versions: ['>=5.0.0 <=7.0.0'] },
    ]);
  });

  it('creates a service policy with its form and lists what it selects', async () => {
    // ZL/features/projectable-forms/service-policy/service-policy-form.service.ts save, models/service-policy.ts;
    // getSelectedRoles: `#attribute` and `@id`
    ids.policy = idOf(
      await zac({
        does: 'creates a service policy',
        method: 'POST',
        path: `${M}/service-policies`,
        body: {
          name: 'zac-crm-dial',
          serviceRoles: [`@${ids.service}`],
          identityRoles: ['#zac-sales'],
          postureCheckRoles: [`@${ids.MAC}`],
          semantic: 'AnyOf',
          type: 'Dial',
          tags: {},
        },
        status: 201,
        reads: { 'data.id': 'string' },
      }),
    );
    const opened = await zac({
      does: 'opens the policy it saved',
      method: 'GET',
      path: `${M}/service-policies/${ids.policy}//`,
      status: 200,
      reads: {
        'data.serviceRoles': 'string[]',
        'data.identityRoles': 'string[]',
        'data.postureCheckRoles': 'string[]',
        'data.semantic': 'string',
        'data.type': 'string',
        // mergeRolesDisplayIntoMaps
        'data.serviceRolesDisplay[].role': 'string',
        'data.serviceRolesDisplay[].name': 'string',
        'data.identityRolesDisplay': 'array',
        'data.postureCheckRolesDisplay[].name': 'string',
      },
    });
    // named as OpenZiti's controller names an @id role: `@<name>`
    expect(opened.body.data.serviceRolesDisplay).toEqual([{ role: `@${ids.service}`, name: '@zac-crm' }]);

    // getAssociatedServicesByRole, getAssociatedIdentitiesById (DEFAULT_PAGING), getAssociatedPostureChecksById (none)
    const selected = async (list: string, query: string) =>
      namesOf(
        await zac({
          does: `lists the policy's ${list}`,
          method: 'GET',
          path: `${M}/service-policies/${ids.policy}/${list}/${query}`,
          status: 200,
          reads: { data: 'array', 'data[].name': 'string' },
        }),
      );
    expect(await selected('services', '?limit=100&offset=0&sort=name asc')).toEqual(['zac-crm']);
    expect(await selected('identities', '?limit=100&offset=0&sort=name asc')).toEqual(['zac-laptop-2']);
    expect(await selected('posture-checks', '')).toEqual(['zac-mac']);

    // getAssociatedIdentitiesByAttribute: the preview while roles are picked (noSearch false: two spaces)
    const preview = await zac({
      does: 'previews the identities an attribute selects',
      method: 'GET',
      path: `${M}/identities?filter= anyOf(roleAttributes) = "zac-sales"&limit=100&offset=0&sort=name  asc`,
      status: 200,
    });
    expect(namesOf(preview)).toEqual(['zac-laptop-2']);

    // ZL/features/projectable-forms/service/service-form.service.ts getAssociatedServicePolicies (total 5, a name filter)
    const fromService = await zac({
      does: "lists the service's policies",
      method: 'GET',
      path: `${M}/services/${ids.service}/service-policies/?filter= name icontains "crm"&limit=5&offset=0&sort=name  asc`,
      status: 200,
      reads: { 'data[].name': 'string', 'meta.pagination.totalCount': 'number' },
    });
    expect(namesOf(fromService)).toEqual(['zac-crm-dial']);

    const d = opened.body.data;
    await zac({
      does: 'saves the edited policy',
      method: 'PATCH',
      path: `${M}/service-policies/${ids.policy}`,
      body: {
        name: d.name,
        serviceRoles: d.serviceRoles,
        identityRoles: [...d.identityRoles, `@${ids.phone}`],
        postureCheckRoles: d.postureCheckRoles,
        semantic: d.semantic,
        type: d.type,
        tags: d.tags,
      },
      status: 200,
    });
    // ZL/pages/service-policies/service-policies-page.service.ts initTableColumns
    const table = await zac({
      does: 'loads the service policies table',
      method: 'GET',
      path: `${M}/service-policies?limit=50&offset=0&sort=name asc`,
      status: 200,
      reads: {
        'data[].name': 'string',
        'data[].serviceRoles': 'string[]',
        'data[].identityRoles': 'string[]',
        'data[].postureCheckRoles': 'string[]',
        'data[].semantic': 'string',
        'data[].type': 'string',
        'data[].createdAt': 'string',
      },
    });
    expect(table.body.data.find((p: { id: string }) => p.id === ids.policy).identityRoles).toEqual([
      '#zac-sales',
      `@${ids.phone}`,
    ]);
    expect(await selected('identities', '?limit=100&offset=0&sort=name asc')).toEqual([
      'zac-laptop-2',
      'zac-phone',
    ]);
  });

  it('deletes from its list pages', async () => {
    // ZL/services/ziti-controller-data.service.ts delete; a check the policy names by @id goes with the policy:
    // deliberate difference "Deleting what a policy names by `@id`" (409 until then)
    await zac({
      does: 'deletes a check a policy names',
      method: 'DELETE',
      path: `${M}/posture-checks/${ids.MAC}`,
      status: 409,
      reads: { 'error.code': 'string', 'error.message': 'string' },
    });
    const gone: [string, string][] = [
      ['service-policies', ids.policy!],
      ['services', ids.service!],
      ['identities', ids.identity!],
      ['identities', ids.phone!],
      ...['MAC', 'OS', 'DOMAIN', 'MFA', 'PROCESS', 'PROCESS_MULTI'].map((t): [string, string] => [
        'posture-checks',
        ids[t]!,
      ]),
    ];
    for (const [type, id] of gone) {
      await zac({ does: `deletes from ${type}`, method: 'DELETE', path: `${M}/${type}/${id}`, status: 200 });
      await zac({ does: `reopens from ${type}`, method: 'GET', path: `${M}/${type}/${id}//`, status: 404 });
    }
  });
});

describe('the `ziti edge` CLI', () => {
  const ids: Record<string, string> = {};
  /** ziti/cmd/edge/common.go mapNameToID: `id="<x>"`, and if nothing, `name="<x>"`, each a list request */
  const mapNameToId = async (type: string, nameOrId: string) => {
    const byId = await cli({
      does: `looks ${nameOrId} up by id`,
      method: 'GET',
      path: `${M}/${type}${goQuery({ filter: `id="${nameOrId}"` })}`,
      status: 200,
      reads: { data: 'array' },
    });
    if (byId.body.data.length > 0) return nameOrId;
    const byName = await cli({
      does: `looks ${nameOrId} up by name`,
      method: 'GET',
      path: `${M}/${type}${goQuery({ filter: `name="${nameOrId}"` })}`,
      status: 200,
      reads: { data: 'array+', 'data[].id': 'string' },
    });
    expect(byName.body.data).toHaveLength(1);
    return byName.body.data[0].id as string;
  };

  it('logs in as `ziti edge login` does', async () => {
    // ziti/util/rest.go getManagementApiBasePath: JSON from /edge/management/v1/version
    const version = await cli({
      does: 'login finds the management API',
      method: 'GET',
      path: `${M}/version`,
      headers: {},
      status: 200,
      reads: { 'data.apiVersions.edge-management.v1.path': 'string', 'data.capabilities': 'array' },
    });
    expect(version.headers['content-type']).toContain('application/json');
    // sdk-golang edge-apis/client_edge_management.go: no OIDC_AUTH capability, so legacyAuth with the
    // credentials' payload (edge-apis/credentials.go UpdbCredentials.Payload)
    expect(version.body.data.capabilities).not.toContain('OIDC_AUTH');
    const login = await sdk('', {
      does: 'login authenticates',
      method: 'POST',
      path: `${M}/authenticate?method=password`,
      body: { envInfo, password: ADMIN_PASSWORD, sdkInfo, username: 'admin' },
      status: 200,
      reads: {
        'data.token': 'string',
        'data.id': 'string',
        'data.expiresAt': 'string',
        'data.identity.id': 'string',
      },
    });
    cliToken = login.body.data.token;
  });

  it('creates posture checks of every type, lists and updates them', async () => {
    // ziti/cmd/edge/create_posture_check.go: setPostureCheckEntityValues (name, roleAttributes, typeId, tags)
    // plus each type's fields; role attributes not given are null
    const bodies: [string, Record<string, unknown>][] = [
      // cleanMacAddresses: lower-case hex without separators
      ['mac', { macAddresses: ['aabbccddee02'] }],
      // cleanDomains: lower case
      ['domain', { domains: ['corp'] }],
      // parseOsSpec: a Go struct without JSON names, so the keys are `Type` and `Versions`
      ['os', { operatingSystems: [{ Type: 'Linux', Versions: ['>=5.0.0'] }] }],
      // cleanSha512s, cleanSha1
      [
        'process',
        {
          process: {
            osType: 'Linux',
            path: '/usr/bin/cli-edr',
            hashes: ['a'.repeat(128)],
            signerFingerprint: 'b'.repeat(40),
          },
        },
      ],
      // runCreatePostureCheckMfa: --seconds defaults to -1
      [
        'mfa',
        { promptOnUnlock: false, promptOnWake: true, timeoutSeconds: -1, ignoreLegacyEndpoints: false },
      ],
    ];
    const typeIds: Record<string, string> = {
      mac: 'MAC',
      domain: 'DOMAIN',
      os: 'OS',
      process: 'PROCESS',
      mfa: 'MFA',
    };
    for (const [kind, fields] of bodies)
      ids[kind] = idOf(
        await cli({
          does: `create posture-check ${kind}`,
          method: 'POST',
          path: `${M}/posture-checks`,
          body: {
            ...fields,
            name: `cli-${kind}`,
            roleAttributes: kind === 'mfa' ? ['cli-healthy'] : null,
            typeId: typeIds[kind],
            tags: {},
          },
          status: 201,
          reads: { 'data.id': 'string' },
        }),
      );
    // runCreatePostureCheckProcessMulti: through the go-swagger client (rest_model PostureCheckProcessMultiCreate:
    // unset hashes and signers are null, tags omitted)
    ids.processMulti = idOf(
      await sdk(cliToken, {
        does: 'create posture-check process-multi',
        method: 'POST',
        path: `${M}/posture-checks`,
        body: {
          processes: [{ hashes: null, osType: 'Linux', path: '/opt/cli-edr', signerFingerprints: null }],
          semantic: 'AllOf',
          name: 'cli-process-multi',
          roleAttributes: null,
          typeId: 'PROCESS_MULTI',
        },
        status: 201,
        reads: { 'data.id': 'string' },
      }),
    );

    // ziti/cmd/edge/list.go outputPostureChecks: rest_model.UnmarshalPostureCheckDetail by typeId, then each
    // type's fields; roleAttributes is dereferenced, so it must be there
    const listed = await cli({
      does: 'list posture-checks',
      method: 'GET',
      path: `${M}/posture-checks${goQuery({ filter: 'name contains "cli-"' })}`,
      status: 200,
      reads: {
        'data[].id': 'string',
        'data[].name': 'string',
        'data[].typeId': 'string',
        'data[].roleAttributes': 'string[]',
        'meta.pagination.totalCount': 'number',
      },
    });
    const byType: Record<string, Record<string, Kind | Kind[]>> = {
      MFA: { timeoutSeconds: 'number', promptOnWake: 'boolean', promptOnUnlock: 'boolean' },
      MAC: { macAddresses: 'string[]' },
      DOMAIN: { domains: 'string[]' },
      OS: { 'operatingSystems[].type': 'string', 'operatingSystems[].versions': 'string[]' },
      PROCESS_MULTI: {
        semantic: 'string',
        'processes[].path': 'string',
        'processes[].hashes': ['array', 'null'],
        'processes[].signerFingerprints': ['array', 'null'],
      },
      PROCESS: {
        'process.path': 'string',
        'process.hashes': 'string[]',
        'process.signerFingerprint': 'string',
      },
    };
    expect(listed.body.data.map((c: { typeId: string }) => c.typeId).sort()).toEqual(
      Object.keys(byType).sort(),
    );
    for (const check of listed.body.data)
      expect(readProblems(check, byType[check.typeId]!), check.name).toEqual([]);
    const os = listed.body.data.find((c: { typeId: string }) => c.typeId === 'OS');
    expect(os.operatingSystems).toEqual([{ type: 'Linux', versions: ['>=5.0.0'] }]);

    // ziti/cmd/edge/update_posture_check.go: only what changed, and always the typeId
    const mfaId = await mapNameToId('posture-checks', 'cli-mfa');
    expect(mfaId).toBe(ids.mfa);
    await cli({
      does: 'update posture-check mfa',
      method: 'PATCH',
      path: `${M}/posture-checks/${mfaId}`,
      body: { timeoutSeconds: 600, promptOnUnlock: true, typeId: 'MFA' },
      status: 200,
    });
    await cli({
      does: 'update posture-check os',
      method: 'PATCH',
      path: `${M}/posture-checks/${ids.os}`,
      body: { operatingSystems: [{ Type: 'Windows', Versions: ['>=10.0.19041'] }], typeId: 'OS' },
      status: 200,
    });
    const after = await cli({
      does: 'list posture-checks again',
      method: 'GET',
      path: `${M}/posture-checks${goQuery({ filter: 'typeId = "MFA" or typeId = "OS"' })}`,
      status: 200,
    });
    const find = (typeId: string) => after.body.data.find((c: { typeId: string }) => c.typeId === typeId);
    expect(find('MFA')).toMatchObject({ timeoutSeconds: 600, promptOnWake: true, promptOnUnlock: true });
    expect(find('OS').operatingSystems).toEqual([{ type: 'Windows', versions: ['>=10.0.19041'] }]);
  });

  it('creates identities, lists and updates them', async () => {
    // ziti/cmd/edge/create_identity.go runCreateIdentity: the auth policy by name or id first
    expect(await mapNameToId('auth-policies', 'default')).toBe('default');
    const body = {
      name: 'cli-laptop',
      type: 'Default',
      enrollment: { ott: true },
      isAdmin: false,
      roleAttributes: ['cli-sales'],
      permissions: null,
      defaultHostingCost: 0,
      serviceHostingCosts: {},
      serviceHostingPrecedences: {},
      authPolicyId: 'default',
      tags: {},
    };
    ids.identity = idOf(
      await cli({
        does: 'create identity',
        method: 'POST',
        path: `${M}/identities`,
        body,
        status: 201,
        reads: { 'data.id': 'string' },
      }),
    );
    // --updb <username>: an updb enrollment; no -a: role attributes null
    ids.updb = idOf(
      await cli({
        does: 'create identity --updb',
        method: 'POST',
        path: `${M}/identities`,
        body: { ...body, name: 'cli-user', enrollment: { updb: 'cli-user' }, roleAttributes: null },
        status: 201,
        reads: { 'data.id': 'string' },
      }),
    );

    // ziti/cmd/edge/list.go outputIdentities; ziti/cmd/api/list.go GetPaging reads limit, offset, totalCount
    const listed = await cli({
      does: 'list identities',
      method: 'GET',
      path: `${M}/identities`,
      status: 200,
      reads: {
        'data[].id': 'string',
        'data[].name': 'string',
        'data[].type.name': 'string',
        'data[].roleAttributes': 'string[]',
        'data[].authPolicy.name': 'string',
        'meta.pagination.limit': 'number',
        'meta.pagination.offset': 'number',
        'meta.pagination.totalCount': 'number',
      },
    });
    expect(namesOf(listed)).toEqual(expect.arrayContaining(['cli-laptop', 'cli-user']));
    const filtered = await cli({
      does: 'list identities with a filter',
      method: 'GET',
      path: `${M}/identities${goQuery({ filter: 'name contains "cli-" sort by name desc skip 0 limit 5' })}`,
      status: 200,
    });
    expect(namesOf(filtered)).toEqual(['cli-user', 'cli-laptop']);
    expect(filtered.body.data[0].roleAttributes).toEqual([]);

    // ziti/cmd/edge/update_identity.go: the identity by name, then only what changed
    const id = await mapNameToId('identities', 'cli-laptop');
    expect(id).toBe(ids.identity);
    await cli({
      does: 'update identity --role-attributes',
      method: 'PATCH',
      path: `${M}/identities/${id}`,
      body: { roleAttributes: ['cli-sales', 'cli-emea'] },
      status: 200,
    });
    const after = await cli({
      does: 'list identities by id',
      method: 'GET',
      path: `${M}/identities${goQuery({ filter: `id="${id}"` })}`,
      status: 200,
    });
    expect(after.body.data[0].roleAttributes).toEqual(['cli-sales', 'cli-emea']);
  });

  it('creates a service, lists and updates it', async () => {
    // ziti/cmd/edge/create_service.go: no --configs and no -a give null; encryption ON by default
    ids.service = idOf(
      await cli({
        does: 'create service',
        method: 'POST',
        path: `${M}/services`,
        body: {
          name: 'cli-crm',
          encryptionRequired: true,
          roleAttributes: null,
          configs: null,
          maxIdleTimeMillis: 0,
          tags: {},
        },
        status: 201,
        reads: { 'data.id': 'string' },
      }),
    );
    // ziti/cmd/edge/list.go outputServices
    const listed = await cli({
      does: 'list services',
      method: 'GET',
      path: `${M}/services${goQuery({ filter: 'name="cli-crm"' })}`,
      status: 200,
      reads: {
        data: 'array+',
        'data[].id': 'string',
        'data[].name': 'string',
        'data[].encryptionRequired': 'boolean',
        'data[].terminatorStrategy': 'string',
        'data[].roleAttributes': 'string[]',
      },
    });
    expect(listed.body.data[0]).toMatchObject({ id: ids.service, roleAttributes: [], configs: [] });
    // ziti/cmd/edge/update_service.go
    await cli({
      does: 'update service --role-attributes',
      method: 'PATCH',
      path: `${M}/services/${await mapNameToId('services', 'cli-crm')}`,
      body: { roleAttributes: ['cli-apps'] },
      status: 200,
    });
  });

  it('creates a service policy naming entities by name, lists what it selects and updates it', async () => {
    // ziti/cmd/edge/create_service_policy.go convertNamesToIds: `@name` becomes `@id`; --semantic is AnyOf
    // unless given; no roles give []
    const serviceRole = `@${await mapNameToId('services', 'cli-crm')}`;
    const checkRole = `@${await mapNameToId('posture-checks', 'cli-mac')}`;
    ids.policy = idOf(
      await cli({
        does: 'create service-policy',
        method: 'POST',
        path: `${M}/service-policies`,
        body: {
          name: 'cli-crm-dial',
          type: 'Dial',
          serviceRoles: [serviceRole],
          identityRoles: ['#cli-sales'],
          postureCheckRoles: [checkRole, '#cli-healthy'],
          semantic: 'AnyOf',
          tags: {},
        },
        status: 201,
        reads: { 'data.id': 'string' },
      }),
    );
    // ziti/cmd/edge/list.go outputServicePolicies, mapRoleIdsToNames: each *RolesDisplay must be a list of
    // {role, name}, or the command fails
    const listed = await cli({
      does: 'list service-policies',
      method: 'GET',
      path: `${M}/service-policies${goQuery({ filter: 'name="cli-crm-dial"' })}`,
      status: 200,
      reads: {
        data: 'array+',
        'data[].type': 'string',
        'data[].semantic': 'string',
        'data[].serviceRolesDisplay': 'array',
        'data[].identityRolesDisplay': 'array',
        'data[].postureCheckRolesDisplay': 'array',
        'data[].serviceRolesDisplay[].role': 'string',
        'data[].serviceRolesDisplay[].name': 'string',
        'data[].identityRolesDisplay[].role': 'string',
        'data[].postureCheckRolesDisplay[].name': 'string',
      },
    });
    expect(listed.body.data[0].serviceRolesDisplay).toEqual([{ role: serviceRole, name: '@cli-crm' }]);
    expect(listed.body.data[0].postureCheckRolesDisplay).toEqual(
      expect.arrayContaining([{ role: checkRole, name: '@cli-mac' }]),
    );

    // `ziti edge list service-policy services|identities|posture-checks <id>` and `list identity service-policies`
    // (ziti/util/rest.go EdgeControllerListSubEntities)
    const related = async (path: string) =>
      namesOf(
        await cli({
          does: `list ${path}`,
          method: 'GET',
          path: `${M}/${path}`,
          status: 200,
          reads: { data: 'array', 'meta.pagination.totalCount': 'number' },
        }),
      );
    expect(await related(`service-policies/${ids.policy}/services`)).toEqual(['cli-crm']);
    expect(await related(`service-policies/${ids.policy}/identities`)).toEqual(['cli-laptop']);
    expect((await related(`service-policies/${ids.policy}/posture-checks`)).sort()).toEqual([
      'cli-mac',
      'cli-mfa',
    ]);
    expect(await related(`identities/${ids.identity}/service-policies`)).toEqual(['cli-crm-dial']);
    expect(await related(`identities/${ids.identity}/services`)).toEqual(['cli-crm']);

    // ziti/cmd/edge/update_service_policy.go: `@name` resolved again
    const userRole = `@${await mapNameToId('identities', 'cli-user')}`;
    await cli({
      does: 'update service-policy --identity-roles',
      method: 'PATCH',
      path: `${M}/service-policies/${await mapNameToId('service-policies', 'cli-crm-dial')}`,
      body: { identityRoles: ['#cli-sales', userRole] },
      status: 200,
    });
    expect((await related(`service-policies/${ids.policy}/identities`)).sort()).toEqual([
      'cli-laptop',
      'cli-user',
    ]);
  });

  it('deletes by name or id as `ziti edge delete` does', async () => {
    // ziti/cmd/edge/common.go mapNamesToIDs: `id = "<x>" or name="<x>"`, then DELETE each (delete.go)
    const remove = async (type: string, nameOrId: string, status: number) => {
      const found = await cli({
        does: `looks ${nameOrId} up`,
        method: 'GET',
        path: `${M}/${type}${goQuery({ filter: `id = "${nameOrId}" or name="${nameOrId}"` })}`,
        status: 200,
        reads: { data: 'array+', 'data[].id': 'string' },
      });
      expect(found.body.data).toHaveLength(1);
      return cli({
        does: `delete ${type} ${nameOrId}`,
        method: 'DELETE',
        path: `${M}/${type}/${found.body.data[0].id}`,
        status,
      });
    };
    // deliberate difference "Deleting what a policy names by `@id`": 409 naming the policy
    const refused = await remove('posture-checks', 'cli-mac', 409);
    expect(refused.body.error.code).toBe('CAN_NOT_DELETE_REFERENCED_ENTITY');
    await remove('service-policies', 'cli-crm-dial', 200);
    for (const name of ['cli-mac', 'cli-domain', 'cli-os', 'cli-process', 'cli-process-multi', 'cli-mfa'])
      await remove('posture-checks', name, 200);
    await remove('services', ids.service!, 200);
    await remove('identities', 'cli-laptop', 200);
    await remove('identities', ids.updb!, 200);
    const left = await cli({
      does: 'list what is left',
      method: 'GET',
      path: `${M}/identities${goQuery({ filter: 'name contains "cli-"' })}`,
      status: 200,
    });
    expect(left.body.data).toEqual([]);
  });
});

describe('an OpenZiti SDK (Go) signing in, listing services and using MFA, and ZAC resetting it', () => {
  let userId = '';
  let token = '';
  const code = (app: AuthenticatorApp) => app.code(clock.now());
  /** sdk-golang edge-apis/client_edge_client.go legacyAuth with the UpdbCredentials payload */
  const signIn = (status = 200, reads: Step['reads'] = {}) =>
    sdk('', {
      does: 'authenticates',
      method: 'POST',
      path: `${CLIENT}/authenticate?method=password`,
      body: {
        configTypes: ['intercept.v1', 'host.v1'],
        envInfo,
        password: 'sdk-password',
        sdkInfo,
        username: 'sdk-user',
      },
      status,
      reads: { 'data.token': 'string', 'data.identity.id': 'string', ...reads },
    });
  /** ziti/client.go EnrollMfa: POST with no body (Content-Length: 0), then DetailMfa */
  const enroll = async () => {
    await sdk(token, {
      does: 'starts MFA enrollment',
      method: 'POST',
      path: `${CLIENT}/current-identity/mfa`,
      body: '',
      status: 201,
    });
    const detail = await sdk(token, {
      does: 'reads the enrollment',
      method: 'GET',
      path: `${CLIENT}/current-identity/mfa`,
      status: 200,
      reads: {
        'data.provisioningUrl': 'string',
        'data.recoveryCodes': 'array+',
        'data.isVerified': 'boolean',
      },
    });
    expect(detail.body.data.isVerified).toBe(false);
    return new AuthenticatorApp(detail.body.data.provisioningUrl);
  };
  const zacRow = async () =>
    (
      await zac({
        does: 'finds the identity in its table',
        method: 'GET',
        path: `${M}/identities?filter= name icontains "sdk-user"&limit=50&offset=0&sort=name  asc`,
        status: 200,
        reads: { data: 'array+' },
      })
    ).body.data[0];

  beforeAll(async () => {
    // TOTP codes work once each: the clock moves a step between codes only when told to
    clock = new FakeClock(tc.ctx);
    const admin = new Api(tc.url, zacToken);
    userId = await createUser(admin, 'sdk-user', 'sdk-password', { roleAttributes: ['sdk-users'] });
    await admin.post(`${MGMT}/services`, { name: 'sdk-crm', roleAttributes: ['sdk-apps'] });
    await admin.post(`${MGMT}/service-policies`, {
      name: 'sdk-crm-dial',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: ['#sdk-users'],
      serviceRoles: ['#sdk-apps'],
    });
  });

  it('reads the version, signs in fully and lists its services', async () => {
    // ziti/client.go loadCtrlCapabilities
    await sdk('', {
      does: 'reads the version',
      method: 'GET',
      path: `${CLIENT}/version`,
      status: 200,
      reads: { 'data.version': 'string', 'data.capabilities': 'array' },
    });
    // ziti/ziti.go authenticate: no auth queries, a full session
    const login = await signIn(200, { 'data.authQueries': ['array', 'absent', 'null'] });
    expect(login.body.data.authQueries ?? []).toEqual([]);
    token = login.body.data.token;

    // ziti/client.go GetServices: pages of 500, reading the total (a pointer it dereferences)
    const services = await sdk(token, {
      does: 'lists its services',
      method: 'GET',
      path: `${CLIENT}/services${goQuery({ limit: '500', offset: '0' })}`,
      status: 200,
      reads: {
        'meta.pagination.totalCount': 'number',
        'data[].id': 'string',
        'data[].name': 'string',
        'data[].permissions': 'string[]',
        'data[].postureQueries': 'array',
      },
    });
    expect(namesOf(services)).toEqual(['sdk-crm']);
    // ziti/client.go GetService: `name="<x>"`
    const one = await sdk(token, {
      does: 'finds a service by name',
      method: 'GET',
      path: `${CLIENT}/services${goQuery({ filter: 'name="sdk-crm"' })}`,
      status: 200,
      reads: { data: 'array+' },
    });
    expect(one.body.data[0].permissions).toEqual(['Dial']);

    // ZL/pages/identities/identities-page.service.ts osRenderer, sdkRenderer: what the SDK said at login
    const row = await zacRow();
    expect(readProblems(row, { 'envInfo.os': 'string', 'sdkInfo.version': 'string' })).toEqual([]);
    expect(row).toMatchObject({
      envInfo: { os: 'linux', arch: 'amd64' },
      sdkInfo: { type: 'ziti-sdk-golang' },
    });
  });

  it('enrolls in MFA, verifies it, and answers the MFA query of its next sign-in', async () => {
    const app = await enroll();
    // ziti/client.go VerifyMfa
    await sdk(token, {
      does: 'verifies the enrollment',
      method: 'POST',
      path: `${CLIENT}/current-identity/mfa/verify`,
      body: { code: await code(app) },
      status: 200,
    });
    // ziti/ziti.go authenticate, handleAuthQuery: a partial session with a `ziti` MFA query
    const login = await signIn(200, {
      'data.authQueries': 'array+',
      'data.authQueries[].typeId': 'string',
      'data.authQueries[].provider': 'string',
      'data.authQueries[].httpMethod': 'string',
      'data.authQueries[].httpUrl': 'string',
    });
    expect(login.body.data.authQueries[0]).toMatchObject({
      typeId: 'MFA',
      provider: 'ziti',
      httpMethod: 'POST',
    });
    token = login.body.data.token;
    await sdk(token, {
      does: 'lists services before MFA',
      method: 'GET',
      path: `${CLIENT}/services`,
      status: 401,
    });
    // ziti/client.go AuthenticateMFA at EdgeClientTotpAuthEndpoint (ziti/ziti.go)
    clock.nextStep();
    await sdk(token, {
      does: 'answers the MFA query',
      method: 'POST',
      path: '/edge/client/v1/authenticate/mfa',
      body: { code: await code(app) },
      status: 200,
    });
    await sdk(token, {
      does: 'lists services after MFA',
      method: 'GET',
      path: `${CLIENT}/services`,
      status: 200,
    });
  });

  it('ZAC shows the MFA column and resets it', async () => {
    // ZL/pages/identities/identities-page.service.ts addActionsPerRow: 'reset-mfa' when isMfaEnabled
    expect((await zacRow()).isMfaEnabled).toBe(true);
    // ZL/services/ziti-controller-data.service.ts resetMFA: DELETE with the interceptor's headers, no body
    await zac({
      does: 'resets MFA',
      method: 'DELETE',
      path: `${M}/identities/${userId}/mfa`,
      status: 200,
    });
    expect((await zacRow()).isMfaEnabled).toBe(false);
    const login = await signIn(200);
    expect(login.body.data.authQueries ?? []).toEqual([]);
    token = login.body.data.token;
  });

  it('removes its own MFA with the code in the mfa-validation-code header', async () => {
    const app = await enroll();
    clock.nextStep();
    await sdk(token, {
      does: 'verifies the enrollment',
      method: 'POST',
      path: `${CLIENT}/current-identity/mfa/verify`,
      body: { code: await code(app) },
      status: 200,
    });
    // ziti/client.go RemoveMfa: DeleteMfaParams.MfaValidationCode is a header; no body
    clock.nextStep();
    await sdk(token, {
      does: 'removes MFA',
      method: 'DELETE',
      path: `${CLIENT}/current-identity/mfa`,
      headers: { 'mfa-validation-code': await code(app) },
      status: 200,
    });
    await sdk(token, {
      does: 'reads the removed enrollment',
      method: 'GET',
      path: `${CLIENT}/current-identity/mfa`,
      status: 404,
    });
    expect((await zacRow()).isMfaEnabled).toBe(false);
  });
});

describe('what the checks above hold to', () => {
  it('a field missing or of another type fails the check', () => {
    const body = { data: [{ name: 'a', roleAttributes: [] }, { name: 7 }], meta: {} };
    expect(
      readProblems(body, {
        'data[].name': 'string',
        'data[].roleAttributes': 'string[]',
        'meta.pagination.totalCount': 'number',
        'data[].tags': 'absent',
      }),
    ).toEqual([
      'data[1].name: the client reads string, found number',
      'data[1].roleAttributes: the client reads string[], found absent',
      'meta.pagination.totalCount: the client reads number, found absent',
    ]);
  });

  it('what the clients need loosens nothing else: a needed body, a limit, a filter’s own order, other paths', async () => {
    const admin = new Api(tc.url, zacToken);
    // an empty body where one is required is still refused, saying what is missing
    const empty = await sdk(zacToken, {
      does: 'creates a service with no body',
      method: 'POST',
      path: `${M}/services`,
      body: '',
      status: 400,
    });
    expect(empty.body.error.code).toBe('COULD_NOT_VALIDATE');
    expect((await admin.get(`${M}/services?limit=-2`)).status).toBe(400);
    // a `sort by` in the filter wins over the `sort` parameter, as in OpenZiti
    for (const name of ['order-a', 'order-b']) await admin.post(`${M}/services`, { name });
    const ordered = await admin.get(
      `${M}/services?filter=${encodeURIComponent('name contains "order-" sort by name desc')}&sort=${encodeURIComponent('name asc')}`,
    );
    expect(namesOf(ordered)).toEqual(['order-b', 'order-a']);
    // only the APIs' paths are cleaned
    expect((await admin.get('/version/')).status).toBe(404);
  });
});
