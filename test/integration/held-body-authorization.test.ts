/**
 * A client may send a request's headers and hold its body back for as long as the request timeout allows.
 * Whatever is true when the handler acts decides, not what was true when the headers arrived: an API session
 * ended, an identity disabled or an administrator's rights removed in between refuse the request, and it
 * changes nothing (no edge session, no management write). On both backends, and across two instances sharing
 * one PostgreSQL database (headers at B, the revocation at A).
 */
import { request as httpRequest, type ClientRequest } from 'node:http';
import { rmSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController, type RunningController } from '../../controller/composition/start-controller.js';
import { Api, CLIENT, MGMT, createUser } from '../helpers/api.js';
import { ADMIN_PASSWORD, tempDir } from '../helpers/controller.js';
import { create, publishService } from '../helpers/data-plane-world.js';
import { unique } from '../helpers/posture-world.js';
import { testBackend, testConfig } from '../helpers/test-database.js';

/** Long enough for the guard to have read the headers; if it has not, the request is refused all the same. */
const HEADERS_SETTLE_MS = 400;

interface Held {
  /** sends the body and resolves with the answer */
  finish(): Promise<{ status: number; body: { error?: { code?: string } } }>;
}

/** Sends `method path` with its headers now and its JSON body only when `finish` is called. */
function holdBody(baseUrl: string, method: string, path: string, token: string, body: unknown): Held {
  const text = JSON.stringify(body);
  const url = new URL(path, baseUrl);
  let req: ClientRequest;
  const answered = new Promise<{ status: number; body: { error?: { code?: string } } }>((resolve, reject) => {
    req = httpRequest(
      url,
      {
        method,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
          'zt-session': token,
        },
      },
      (res) => {
        let data = '';
        res.on('data', (c: Buffer) => (data += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data ? JSON.parse(data) : {} }));
      },
    );
    req.on('error', reject);
    req.flushHeaders();
  });
  return {
    async finish() {
      req.end(text);
      return answered;
    },
  };
}

describe('authorization decided when the handler acts, not when the headers arrived', () => {
  let controller: RunningController;
  let dir: string;
  let admin: Api;
  let serviceId: string;
  let attribute: string;

  beforeAll(async () => {
    dir = tempDir('postern-held-body-');
    controller = await startController(await testConfig(dir), { adminPassword: ADMIN_PASSWORD });
    admin = new Api(controller.url);
    expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
    attribute = unique('held');
    serviceId = (await publishService(admin, 9, { attribute: `${attribute}-svc` })).serviceId;
    await create(admin, 'service-policies', {
      name: `${attribute}-policy`,
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [`#${attribute}-user`],
      serviceRoles: [`#${attribute}-svc`],
      postureCheckRoles: [],
    });
  }, 60_000);

  afterAll(async () => {
    await controller?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A user of the policy, signed in on the client API. */
  const user = async () => {
    const name = unique('user');
    const id = await createUser(admin, name, 'user-password', { roleAttributes: [`${attribute}-user`] });
    const api = new Api(controller.url);
    expect((await api.login(name, 'user-password', CLIENT)).status).toBe(200);
    return { id, name, api };
  };

  /** The identity's edge sessions, as a fresh sign-in of it sees them. */
  const sessionsOf = async (name: string) => {
    const fresh = new Api(controller.url);
    expect((await fresh.login(name, 'user-password', CLIENT)).status).toBe(200);
    return (await fresh.get(`${CLIENT}/sessions`)).body.data as unknown[];
  };

  it('a session requested before its API session ended is refused once the body arrives', async () => {
    const u = await user();
    const held = holdBody(controller.url, 'POST', `${CLIENT}/sessions`, u.api.token!, { serviceId });
    await delay(HEADERS_SETTLE_MS);
    expect((await u.api.delete(`${CLIENT}/current-api-session`)).status).toBe(200);
    const answer = await held.finish();
    expect(answer.status).toBe(401);
    expect(await sessionsOf(u.name)).toEqual([]);
  });

  it('a session requested before the identity was disabled is refused once the body arrives', async () => {
    const u = await user();
    const held = holdBody(controller.url, 'POST', `${CLIENT}/sessions`, u.api.token!, { serviceId });
    await delay(HEADERS_SETTLE_MS);
    expect((await admin.patch(`${MGMT}/identities/${u.id}`, { disabled: true })).status).toBe(200);
    const answer = await held.finish();
    expect(answer.status).toBe(401);
    expect((await admin.patch(`${MGMT}/identities/${u.id}`, { disabled: false })).status).toBe(200);
    expect(await sessionsOf(u.name)).toEqual([]);
  });

  it("an administrator's write sent before their API session was ended does not land", async () => {
    const name = unique('admin');
    const id = await createUser(admin, name, 'admin-password', { isAdmin: true });
    const other = new Api(controller.url);
    const login = await other.login(name, 'admin-password');
    expect(login.status).toBe(200);
    const target = await createUser(admin, unique('target'), 'user-password');
    const held = holdBody(controller.url, 'PATCH', `${MGMT}/identities/${target}`, other.token!, {
      roleAttributes: ['changed-by-revoked-admin'],
    });
    await delay(HEADERS_SETTLE_MS);
    const ended = await admin.delete(`${MGMT}/api-sessions/${login.body.data.id as string}`);
    expect(ended.status).toBe(200);
    expect((await held.finish()).status).toBe(401);
    const after = (await admin.get(`${MGMT}/identities/${target}`)).body.data as { roleAttributes: string[] };
    expect(after.roleAttributes).not.toContain('changed-by-revoked-admin');
    expect(id).toBeTruthy();
  });

  it("an administrator's write sent before their rights were removed does not land", async () => {
    const name = unique('admin');
    const id = await createUser(admin, name, 'admin-password', { isAdmin: true });
    const other = new Api(controller.url);
    expect((await other.login(name, 'admin-password')).status).toBe(200);
    const target = await createUser(admin, unique('target'), 'user-password');
    const held = holdBody(controller.url, 'PATCH', `${MGMT}/identities/${target}`, other.token!, {
      roleAttributes: ['changed-by-former-admin'],
    });
    await delay(HEADERS_SETTLE_MS);
    expect((await admin.patch(`${MGMT}/identities/${id}`, { isAdmin: false })).status).toBe(200);
    expect((await held.finish()).status).toBe(401);
    const after = (await admin.get(`${MGMT}/identities/${target}`)).body.data as { roleAttributes: string[] };
    expect(after.roleAttributes).not.toContain('changed-by-former-admin');
  });

  describe.skipIf(testBackend() !== 'postgres')(
    'across two instances (PostgreSQL only: SQLite holds its data folder for one controller)',
    () => {
      let b: RunningController;
      let bDir: string;

      beforeAll(async () => {
        bDir = tempDir('postern-held-body-b-');
        b = await startController(await testConfig(bDir, { database: controller.ctx.config.database }), {
          adminPassword: ADMIN_PASSWORD,
        });
      }, 60_000);

      afterAll(async () => {
        await b?.close();
        rmSync(bDir, { recursive: true, force: true });
      });

      it('a session requested at B before the identity was disabled at A is refused', async () => {
        const u = await user();
        const atB = new Api(b.url);
        expect((await atB.login(u.name, 'user-password', CLIENT)).status).toBe(200);
        const held = holdBody(b.url, 'POST', `${CLIENT}/sessions`, atB.token!, { serviceId });
        await delay(HEADERS_SETTLE_MS);
        expect((await admin.patch(`${MGMT}/identities/${u.id}`, { disabled: true })).status).toBe(200);
        expect((await held.finish()).status).toBe(401);
        expect((await admin.patch(`${MGMT}/identities/${u.id}`, { disabled: false })).status).toBe(200);
        expect(await sessionsOf(u.name)).toEqual([]);
      });

      it('a session requested at B before the user signed out at A is refused', async () => {
        const u = await user();
        const atB = new Api(b.url);
        expect((await atB.login(u.name, 'user-password', CLIENT)).status).toBe(200);
        const held = holdBody(b.url, 'POST', `${CLIENT}/sessions`, atB.token!, { serviceId });
        await delay(HEADERS_SETTLE_MS);
        // The same API session, ended through A.
        expect((await u.api.as(atB.token).delete(`${CLIENT}/current-api-session`)).status).toBe(200);
        expect((await held.finish()).status).toBe(401);
        expect(await sessionsOf(u.name)).toEqual([]);
      });
    },
  );
});
