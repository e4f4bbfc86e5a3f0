import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, UnsecuredJWT } from 'jose';
import { startTestController, ADMIN_PASSWORD, type TestController } from '../helpers/controller.js';
import { Api, CLIENT, MGMT, authPolicyBody, createUser } from '../helpers/api.js';
import { TestOidcProvider } from '../helpers/oidc-test-provider.js';

/**
 * Sign-in with an OpenID provider's token (`authenticate?method=ext-jwt`) against a real controller (either
 * store) and a provider on a loopback port serving its JWKS: what is accepted, what is refused (each with
 * OpenZiti's 401 INVALID_AUTH), a rotated key followed, just-in-time identities and claims mapped to role
 * attributes at every sign-in.
 */
const AUDIENCE = 'postern-test-client';

let tc: TestController;
let admin: Api;
let provider: TestOidcProvider;
let signerId: string;
let n = 0;
/** providers a test started for a signer of its own, closed at the end */
const others: TestOidcProvider[] = [];
async function otherProvider(): Promise<TestOidcProvider> {
  const p = await TestOidcProvider.start();
  others.push(p);
  return p;
}
const unique = (prefix: string) => `${prefix}-${process.pid}-${++n}`;

async function created(res: { status: number; body: any }): Promise<string> {
  if (res.status !== 201) throw new Error(`create failed: ${JSON.stringify(res.body)}`);
  return res.body.data.id as string;
}

/** A signer for `provider` (jose's keys fetched from its JWKS endpoint). */
function signerBody(p: TestOidcProvider, extra: Record<string, unknown> = {}) {
  return {
    name: unique('provider'),
    enabled: true,
    issuer: p.issuer,
    audience: AUDIENCE,
    jwksEndpoint: p.jwksUri,
    useExternalId: true,
    clientId: AUDIENCE,
    scopes: ['openid', 'profile'],
    externalAuthUrl: `${p.issuer}/protocol/openid-connect/auth`,
    targetToken: 'ID',
    ...extra,
  };
}

async function signIn(token: string | undefined, prefix = CLIENT) {
  const api = new Api(tc.url);
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const res = await api.post(`${prefix}/authenticate?method=ext-jwt`, {}, headers);
  if (res.status === 200) api.token = res.headers.get('zt-session') ?? undefined;
  return { res, api };
}

async function userWithExternalId(externalId: string, extra: Record<string, unknown> = {}): Promise<string> {
  return created(
    await admin.post(`${MGMT}/identities`, {
      name: unique('sso-user'),
      type: 'User',
      isAdmin: false,
      externalId,
      ...extra,
    }),
  );
}

async function identitiesWithExternalId(externalId: string): Promise<any[]> {
  const filter = encodeURIComponent(`externalId = "${externalId}"`);
  return (await admin.get(`${MGMT}/identities?filter=${filter}`)).body.data;
}

beforeAll(async () => {
  provider = await TestOidcProvider.start();
  // A short cooldown between key fetches, so a rotation is followed within the test's patience.
  tc = await startTestController({ jwksCooldownMs: 200 });
  admin = new Api(tc.url);
  const login = await admin.login('admin', ADMIN_PASSWORD);
  if (login.status !== 200) throw new Error('admin login failed');
  signerId = await created(await admin.post(`${MGMT}/external-jwt-signers`, signerBody(provider)));
});
afterAll(async () => {
  await tc?.dispose();
  await provider?.close();
  await Promise.all(others.map((p) => p.close()));
});

describe('a valid token', () => {
  it('signs in the identity whose externalId is its subject, on both APIs', async () => {
    const id = await userWithExternalId(unique('subject'));
    const [identity] = await identitiesWithExternalId(
      (await admin.get(`${MGMT}/identities/${id}`)).body.data.externalId,
    );
    const token = await provider.token({ sub: identity.externalId });
    for (const prefix of [CLIENT, MGMT]) {
      const { res, api } = await signIn(token, prefix);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.identity.id).toBe(id);
      expect((await api.get(`${prefix}/current-identity`)).body.data.id).toBe(id);
    }
  });

  it('owes a TOTP code where the auth policy asks for one (the session is partial)', async () => {
    const policy = await created(
      await admin.post(`${MGMT}/auth-policies`, authPolicyBody(unique('ap'), true)),
    );
    // authPolicyBody leaves external JWTs off: allow them.
    expect(
      (await admin.patch(`${MGMT}/auth-policies/${policy}`, { primary: { extJwt: { allowed: true } } }))
        .status,
    ).toBe(200);
    const subject = unique('totp');
    await userWithExternalId(subject, { authPolicyId: policy });
    const { res, api } = await signIn(await provider.token({ sub: subject }));
    expect(res.status).toBe(200);
    expect(res.body.data.authQueries).toEqual([expect.objectContaining({ typeId: 'MFA', provider: 'ziti' })]);
    expect((await api.get(`${CLIENT}/services`)).status).toBe(401);
  });
});

describe('a signer disabled or deleted', () => {
  it('ends the API sessions it opened, and only those', async () => {
    const own = await otherProvider();
    const ownSigner = await created(await admin.post(`${MGMT}/external-jwt-signers`, signerBody(own)));
    const subject = unique('leaver');
    await userWithExternalId(subject);
    const through = (await signIn(await own.token({ sub: subject }))).api;
    const elsewhere = (await signIn(await provider.token({ sub: subject }))).api;
    expect((await through.get(`${CLIENT}/current-api-session`)).status).toBe(200);

    expect((await admin.patch(`${MGMT}/external-jwt-signers/${ownSigner}`, { enabled: false })).status).toBe(
      200,
    );
    expect((await through.get(`${CLIENT}/current-api-session`)).status).toBe(401);
    expect((await elsewhere.get(`${CLIENT}/current-api-session`)).status).toBe(200);
    expect((await signIn(await own.token({ sub: subject }))).res.status).toBe(401);

    // Enabled again, then deleted: the same.
    expect((await admin.patch(`${MGMT}/external-jwt-signers/${ownSigner}`, { enabled: true })).status).toBe(
      200,
    );
    const again = (await signIn(await own.token({ sub: subject }))).api;
    expect((await admin.delete(`${MGMT}/external-jwt-signers/${ownSigner}`)).status).toBe(200);
    expect((await again.get(`${CLIENT}/current-api-session`)).status).toBe(401);
    expect((await elsewhere.get(`${CLIENT}/current-api-session`)).status).toBe(200);
  });
});

describe("an auth policy's secondary.requireExtJwtSigner", () => {
  it("makes a password sign-in also present that signer's token for the same identity", async () => {
    const body = authPolicyBody(unique('ap'), false);
    const policy = await created(
      await admin.post(`${MGMT}/auth-policies`, {
        ...body,
        primary: { ...body.primary, extJwt: { allowed: true, allowedSigners: [signerId] } },
        secondary: { requireTotp: false, requireExtJwtSigner: signerId },
      }),
    );
    const name = unique('both');
    await createUser(admin, name, 'password-1', { externalId: name, authPolicyId: policy });
    const password = (headers: Record<string, string> = {}) =>
      new Api(tc.url).post(
        `${CLIENT}/authenticate?method=password`,
        { username: name, password: 'password-1' },
        headers,
      );

    const alone = await password();
    expect(alone.status).toBe(401);
    expect(alone.body.error.cause).toMatchObject({ field: 'Authorization' });
    const someoneElse = await provider.token({ sub: unique('else') });
    expect((await password({ authorization: `Bearer ${someoneElse}` })).status).toBe(401);
    const own = await provider.token({ sub: name });
    expect((await password({ authorization: `Bearer ${own}` })).status).toBe(200);
  });
});

describe('refused tokens (401 INVALID_AUTH, nothing created)', () => {
  let subject: string;
  beforeAll(async () => {
    subject = unique('refused');
    await userWithExternalId(subject);
  });

  const refused = async (token: string | undefined) => {
    const { res } = await signIn(token);
    expect(res.status, JSON.stringify(res.body)).toBe(401);
    expect(res.body.error.code).toBe('INVALID_AUTH');
    expect(res.headers.get('zt-session')).toBeNull();
    return res;
  };

  it('a wrong audience', async () => {
    await refused(await provider.token({ sub: subject }, { audience: 'another-app' }));
  });

  it('a wrong issuer', async () => {
    await refused(await provider.token({ sub: subject }, { issuer: 'https://attacker.example/' }));
  });

  it('an expired token (past the clock tolerance)', async () => {
    await refused(await provider.token({ sub: subject }, { expiresIn: -300 }));
  });

  it('alg: none', async () => {
    const token = new UnsecuredJWT({ sub: subject })
      .setIssuer(provider.issuer)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('5m')
      .encode();
    await refused(token);
  });

  it('HS256 signed with the public key as the secret', async () => {
    const secret = new TextEncoder().encode(JSON.stringify(provider.publicJwk));
    const token = await new SignJWT({ sub: subject })
      .setProtectedHeader({ alg: 'HS256', kid: provider.kid })
      .setIssuer(provider.issuer)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(secret);
    await refused(token);
  });

  it('a key the provider never published (unknown kid)', async () => {
    await refused(await provider.foreignToken({ sub: subject }));
  });

  it('no bearer at all: the header is named', async () => {
    const res = await refused(undefined);
    expect(res.body.error.cause).toMatchObject({ field: 'Authorization' });
  });

  it('a subject no identity has, when the signer creates none', async () => {
    await refused(await provider.token({ sub: unique('nobody') }));
    expect(await identitiesWithExternalId(`nobody-${process.pid}-${n}`)).toEqual([]);
  });

  it('an auth policy that does not allow this signer', async () => {
    const body = authPolicyBody(unique('ap'), false);
    body.primary.extJwt = { allowed: true, allowedSigners: [] };
    const other = await created(
      await admin.post(`${MGMT}/external-jwt-signers`, signerBody(await otherProvider())),
    );
    const policy = await created(
      await admin.post(`${MGMT}/auth-policies`, {
        ...body,
        primary: { ...body.primary, extJwt: { allowed: true, allowedSigners: [other] } },
      }),
    );
    const who = unique('policy');
    await userWithExternalId(who, { authPolicyId: policy });
    await refused(await provider.token({ sub: who }));
  });
});

describe('keys at the provider', () => {
  it('follows a rotation: a token signed with the new key signs in once the JWKS is fetched again', async () => {
    const subject = unique('rotate');
    await userWithExternalId(subject);
    expect((await signIn(await provider.token({ sub: subject }))).res.status).toBe(200);
    const fetched = provider.jwksFetches;
    await provider.rotate();
    // The first try may fall inside the cooldown since the last fetch; the controller must get there.
    const deadline = Date.now() + 20_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await signIn(await provider.token({ sub: subject }))).res.status;
      if (status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    expect(provider.jwksFetches).toBeGreaterThan(fetched);
  });
});

describe('just-in-time identities and claims to role attributes', () => {
  let jitProvider: TestOidcProvider;
  beforeAll(async () => {
    jitProvider = await otherProvider();
    await created(
      await admin.post(
        `${MGMT}/external-jwt-signers`,
        signerBody(jitProvider, {
          enrollToTokenEnabled: true,
          enrollNameClaimsSelector: 'preferred_username',
          enrollAttributeClaimsSelector: 'groups',
        }),
      ),
    );
  });

  it('creates exactly one identity under 10 parallel first sign-ins', async () => {
    const subject = unique('jit');
    const token = await jitProvider.token({ sub: subject, preferred_username: subject, groups: ['staff'] });
    const results = await Promise.all(Array.from({ length: 10 }, () => signIn(token)));
    expect(results.map((r) => r.res.status)).toEqual(Array(10).fill(200));
    const found = await identitiesWithExternalId(subject);
    expect(found).toHaveLength(1);
    expect(new Set(results.map((r) => r.res.body.data.identity.id))).toEqual(new Set([found[0].id]));
    expect(found[0]).toMatchObject({ name: subject, roleAttributes: ['staff'], authPolicyId: 'default' });
  });

  it('creates exactly one identity when parallel first sign-ins carry different names (the unique externalId decides)', async () => {
    const subject = unique('jit-names');
    const tokens = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        jitProvider.token({ sub: subject, preferred_username: `${subject}-${i}` }),
      ),
    );
    const results = await Promise.all(tokens.map((t) => signIn(t)));
    expect(results.map((r) => r.res.status)).toEqual(Array(10).fill(200));
    expect(await identitiesWithExternalId(subject)).toHaveLength(1);
  });

  it("moves the identity's attributes and services with its groups at the next sign-in, keeping an admin's", async () => {
    const service = await created(await admin.post(`${MGMT}/services`, { name: unique('eng-svc') }));
    await created(
      await admin.post(`${MGMT}/service-policies`, {
        name: unique('eng-dial'),
        type: 'Dial',
        semantic: 'AnyOf',
        identityRoles: ['#engineering'],
        serviceRoles: [`@${service}`],
      }),
    );
    const subject = unique('mover');
    const first = await signIn(await jitProvider.token({ sub: subject, groups: ['engineering'] }));
    expect(first.res.status).toBe(200);
    const id = first.res.body.data.identity.id as string;
    const serviceIds = async (api: Api) =>
      (await api.get(`${CLIENT}/services`)).body.data.map((s: any) => s.id);
    expect(await serviceIds(first.api)).toContain(service);
    // An administrator adds one of their own.
    const identity = (await admin.get(`${MGMT}/identities/${id}`)).body.data;
    expect(
      (
        await admin.patch(`${MGMT}/identities/${id}`, {
          roleAttributes: [...identity.roleAttributes, 'laptop'],
        })
      ).status,
    ).toBe(200);

    const next = await signIn(await jitProvider.token({ sub: subject, groups: ['sales'] }));
    expect(next.res.status).toBe(200);
    const after = (await admin.get(`${MGMT}/identities/${id}`)).body.data;
    expect([...after.roleAttributes].sort()).toEqual(['laptop', 'sales']);
    expect(await serviceIds(next.api)).not.toContain(service);
    expect(await identitiesWithExternalId(subject)).toHaveLength(1);
  });
});

describe('the wire', () => {
  it('lists enabled signers to anyone on the client API, without keys or claim settings', async () => {
    const disabled = await created(
      await admin.post(`${MGMT}/external-jwt-signers`, signerBody(await otherProvider(), { enabled: false })),
    );
    const res = await new Api(tc.url).get(`${CLIENT}/external-jwt-signers`);
    expect(res.status).toBe(200);
    const ids = res.body.data.map((s: any) => s.id);
    expect(ids).toContain(signerId);
    expect(ids).not.toContain(disabled);
    const shown = res.body.data.find((s: any) => s.id === signerId);
    expect(shown).toMatchObject({
      clientId: AUDIENCE,
      scopes: ['openid', 'profile'],
      targetToken: 'ID',
      openIdConfigurationUrl: `${provider.issuer}/.well-known/openid-configuration`,
    });
    for (const hidden of [
      'jwksEndpoint',
      'issuer',
      'claimsProperty',
      'certPem',
      'enrollAttributeClaimsSelector',
    ])
      expect(shown).not.toHaveProperty(hidden);
  });

  it("lets the console's page connect to the enabled providers (its CSP's connect-src), not the disabled ones", async () => {
    const disabled = await otherProvider();
    await created(await admin.post(`${MGMT}/external-jwt-signers`, signerBody(disabled, { enabled: false })));
    const res = await fetch(`${tc.url}/console/`);
    expect(res.status).toBe(200);
    const connect = (res.headers.get('content-security-policy') ?? '')
      .split('; ')
      .find((d) => d.startsWith('connect-src'))!
      .split(' ');
    expect(connect).toEqual(expect.arrayContaining(["'self'", new URL(provider.issuer).origin]));
    expect(connect).not.toContain(new URL(disabled.issuer).origin);
  });

  it('answers the management detail with OpenZiti fields and defaults', async () => {
    const res = await admin.get(`${MGMT}/external-jwt-signers/${signerId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      issuer: provider.issuer,
      audience: AUDIENCE,
      jwksEndpoint: provider.jwksUri,
      claimsProperty: 'sub',
      useExternalId: true,
      enabled: true,
      certPem: null,
    });
  });

  it.each([
    [{ jwksEndpoint: 'http://keys.example.com/jwks' }, 'jwksEndpoint'],
    [{ jwksEndpoint: null }, 'jwksEndpoint'],
    [{ certPem: 'not a certificate' }, 'certPem'],
    [{ enrollToTokenEnabled: true, useExternalId: false }, 'enrollToTokenEnabled'],
    [{ enrollAuthPolicyId: 'no-such-policy' }, 'enrollAuthPolicyId'],
    [{ audience: '' }, 'audience'],
  ])('refuses a signer with %j naming the field', async (change, field) => {
    const before = (await admin.get(`${MGMT}/external-jwt-signers`)).body.meta.pagination.totalCount;
    const body = { ...signerBody(provider), issuer: `https://${unique('idp')}.example.com/`, ...change };
    const res = await admin.post(`${MGMT}/external-jwt-signers`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(JSON.stringify(res.body.error.cause)).toContain(field);
    expect((await admin.get(`${MGMT}/external-jwt-signers`)).body.meta.pagination.totalCount).toBe(before);
  });

  it('refuses a second signer with the same issuer, and an auth policy naming an unknown signer', async () => {
    const dup = await admin.post(`${MGMT}/external-jwt-signers`, signerBody(provider));
    expect(dup.status).toBe(400);
    expect(dup.body.error.cause.field).toBe('issuer');
    const body = authPolicyBody(unique('ap'), false);
    const res = await admin.post(`${MGMT}/auth-policies`, {
      ...body,
      primary: { ...body.primary, extJwt: { allowed: true, allowedSigners: ['no-such-signer'] } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.cause.field).toBe('primary.extJwt.allowedSigners[0]');
  });

  it('keeps a signer an auth policy names (409), and a second identity cannot take an externalId', async () => {
    const body = authPolicyBody(unique('ap'), false);
    await created(
      await admin.post(`${MGMT}/auth-policies`, {
        ...body,
        primary: { ...body.primary, extJwt: { allowed: true, allowedSigners: [signerId] } },
      }),
    );
    expect((await admin.delete(`${MGMT}/external-jwt-signers/${signerId}`)).status).toBe(409);
    const subject = unique('taken');
    await userWithExternalId(subject);
    const again = await admin.post(`${MGMT}/identities`, {
      name: unique('dup'),
      type: 'User',
      isAdmin: false,
      externalId: subject,
    });
    expect(again.status).toBe(400);
    expect(again.body.error.cause.field).toBe('externalId');
    // A blank externalId is none (ZAC's identity form sends ""): any number of identities have it.
    for (let i = 0; i < 2; i++)
      await created(
        await admin.post(`${MGMT}/identities`, {
          name: unique('blank'),
          type: 'User',
          isAdmin: false,
          externalId: '',
        }),
      );
  });
});
