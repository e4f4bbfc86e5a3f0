import { describe, expect, it } from 'vitest';
import type { CurrentApiSession } from '../../../src/api/auth.js';
import { ControllerError } from '../../../src/controller-client/controller-error.js';
import type { EdgeApi } from '../../../src/agent/client/edge-api.js';
import { MemoryCredentialStore } from '../../../src/agent/credentials/memory-credential-store.js';
import { ACCOUNTS, CredentialVault } from '../../../src/agent/session/credential-vault.js';
import {
  NotSignedInError,
  SessionManager,
  type SessionStatus,
} from '../../../src/agent/session/session-manager.js';

const URL = 'https://controller:1280';
const unauthorized = () => new ControllerError({ status: 401, code: 'UNAUTHORIZED', message: 'gone' });
const totpQuery = { typeId: 'MFA', provider: 'ziti', httpMethod: 'POST', httpUrl: './authenticate/mfa' };

/** A controller of one user: tokens it knows, whether logins owe a code, and which password is right. */
class FakeController {
  token: string | undefined;
  readonly live = new Map<string, { id: string; partial: boolean }>();
  password = 'secret';
  loginsOweTotp = false;
  logins: unknown[] = [];
  /** sign-ins with the device certificate, and whether the controller still accepts it */
  certLogins: unknown[] = [];
  certificateAccepted = true;
  private next = 0;

  session(token: string): CurrentApiSession {
    const s = this.live.get(token)!;
    return {
      id: s.id,
      token,
      createdAt: '',
      updatedAt: '',
      identity: { id: 'i1', name: 'alice' },
      identityId: 'i1',
      authQueries: s.partial ? [totpQuery] : [],
      isMfaRequired: s.partial,
      isMfaComplete: !s.partial,
    };
  }

  api(): EdgeApi {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the object literal below has its own `this`
    const self = this;
    return {
      client: {
        setSessionToken: (t: string | undefined) => (self.token = t),
        get sessionToken() {
          return self.token;
        },
      },
      authenticate: async (request: { password: string }) => {
        self.logins.push(request);
        if (request.password !== self.password)
          throw new ControllerError({ status: 401, code: 'INVALID_AUTH', message: 'no' });
        const token = `tok-${++self.next}`;
        self.live.set(token, { id: `api-${self.next}`, partial: self.loginsOweTotp });
        self.token = token;
        return self.session(token);
      },
      authenticateCert: async (request: object) => {
        self.certLogins.push(request);
        if (!self.certificateAccepted)
          throw new ControllerError({ status: 401, code: 'INVALID_AUTH', message: 'no' });
        const token = `tok-${++self.next}`;
        self.live.set(token, { id: `api-${self.next}`, partial: self.loginsOweTotp });
        self.token = token;
        return self.session(token);
      },
      currentApiSession: async () => {
        if (!self.token || !self.live.has(self.token)) throw unauthorized();
        return self.session(self.token);
      },
      logout: async () => void (self.token && self.live.delete(self.token)),
    } as unknown as EdgeApi;
  }
}

function setup(requestTotp: () => Promise<boolean> = async () => false, certificate = false) {
  const controller = new FakeController();
  const store = new MemoryCredentialStore();
  const changes: SessionStatus[] = [];
  const sessions = new SessionManager({
    api: controller.api(),
    vault: new CredentialVault(store),
    controllerUrl: URL,
    requestTotp,
    envInfo: {},
    sdkInfo: {},
    certificate,
  });
  sessions.changes.on((s) => changes.push(s));
  return { controller, store, sessions, changes };
}

describe('SessionManager', () => {
  it('resumes with the stored token without logging in again', async () => {
    const { controller, store, sessions } = setup();
    await sessions.login({ username: 'alice', password: 'secret' });
    const again = new SessionManager({
      api: controller.api(),
      vault: new CredentialVault(store),
      controllerUrl: URL,
      requestTotp: async () => false,
    });
    controller.token = undefined;
    expect(await again.resume()).toMatchObject({ state: 'active', apiSessionId: 'api-1', username: 'alice' });
    expect(controller.logins).toHaveLength(1);
  });

  it('logs in with the stored password when the stored token has expired', async () => {
    const { controller, sessions } = setup();
    await sessions.login({ username: 'alice', password: 'secret' });
    controller.live.clear();
    expect(await sessions.resume()).toMatchObject({ state: 'active', apiSessionId: 'api-2' });
  });

  it('says "not signed in" with nothing stored and no fallback', async () => {
    const { sessions } = setup();
    await expect(sessions.resume()).rejects.toBeInstanceOf(NotSignedInError);
  });

  it('re-authenticates after the session expired and publishes the new session', async () => {
    const { controller, sessions, changes } = setup();
    await sessions.login({ username: 'alice', password: 'secret' }, false);
    controller.live.clear();
    await expect(sessions.reauthenticate()).resolves.toBe(true);
    expect(changes.map((c) => c.apiSessionId)).toEqual(['api-1', 'api-2']);
  });

  it('does not replace a live session that owes a code, and asks for the code instead', async () => {
    let asked = 0;
    const { controller, sessions } = setup(async () => (asked++, false));
    controller.loginsOweTotp = true;
    expect((await sessions.login({ username: 'alice', password: 'secret' })).state).toBe('needs-totp');
    expect(asked).toBe(1);
    await expect(sessions.reauthenticate()).resolves.toBe(false);
    expect(asked).toBe(2);
    expect(controller.logins).toHaveLength(1);
  });

  it('becomes signed out when the stored password stops working', async () => {
    const { controller, sessions, changes } = setup();
    await sessions.login({ username: 'alice', password: 'secret' });
    controller.live.clear();
    controller.password = 'changed';
    await expect(sessions.reauthenticate()).rejects.toMatchObject({ code: 'INVALID_AUTH' });
    expect(sessions.status().state).toBe('signed-out');
    expect(changes.at(-1)?.state).toBe('signed-out');
  });

  it('logout ends the session and forgets the stored login', async () => {
    const { controller, store, sessions } = setup();
    await sessions.login({ username: 'alice', password: 'secret' });
    await sessions.logout(true);
    expect(controller.live.size).toBe(0);
    expect(store.accounts()).toEqual([]);
    expect(sessions.status().state).toBe('signed-out');
  });
});

describe('SessionManager with an enrolled device certificate', () => {
  const withCertificate = (requestTotp?: () => Promise<boolean>) => setup(requestTotp, true);

  it('signs in with the certificate when no password login is stored, sending envInfo and sdkInfo', async () => {
    const { controller, store, sessions } = withCertificate();
    expect(await sessions.resume()).toMatchObject({
      state: 'active',
      signInMethod: 'certificate',
      identityName: 'alice',
    });
    expect(controller.certLogins).toEqual([{ envInfo: {}, sdkInfo: {} }]);
    expect(controller.logins).toEqual([]);
    // The token is kept; nothing else (the certificate has its own place).
    expect(store.accounts()).toEqual([ACCOUNTS.session]);
  });

  it('prefers a stored password login, and the certificate over a password from the environment', async () => {
    const stored = withCertificate();
    await stored.sessions.login({ username: 'alice', password: 'secret' });
    stored.controller.live.clear();
    expect(await stored.sessions.resume()).toMatchObject({ state: 'active', signInMethod: 'password' });
    expect(stored.controller.certLogins).toEqual([]);

    const fromEnvironment = withCertificate();
    await fromEnvironment.sessions.resume({ username: 'alice', password: 'secret' });
    expect(fromEnvironment.controller.certLogins).toHaveLength(1);
    expect(fromEnvironment.controller.logins).toEqual([]);
  });

  it('signs in with the certificate again after the session expired', async () => {
    const { controller, sessions, changes } = withCertificate();
    await sessions.resume();
    controller.live.clear();
    await expect(sessions.reauthenticate()).resolves.toBe(true);
    expect(controller.certLogins).toHaveLength(2);
    expect(changes.map((c) => c.apiSessionId)).toEqual(['api-1', 'api-2']);
  });

  it('asks for the code a certificate session owes, as after a password', async () => {
    let asked = 0;
    const { controller, sessions } = withCertificate(async () => (asked++, false));
    controller.loginsOweTotp = true;
    expect(await sessions.resume()).toMatchObject({ state: 'needs-totp', signInMethod: 'certificate' });
    expect(asked).toBe(1);
  });

  it('is signed out when the controller no longer accepts the certificate (revoked)', async () => {
    const { controller, sessions } = withCertificate();
    await sessions.resume();
    controller.live.clear();
    controller.certificateAccepted = false;
    await expect(sessions.reauthenticate()).rejects.toMatchObject({ code: 'INVALID_AUTH' });
    expect(sessions.status().state).toBe('signed-out');
  });

  it('logout ends the certificate session and removes its token', async () => {
    const { controller, store, sessions } = withCertificate();
    await sessions.resume();
    await sessions.logout(true);
    expect(controller.live.size).toBe(0);
    expect(store.accounts()).toEqual([]);
    expect(sessions.status()).toMatchObject({ state: 'signed-out', signInMethod: 'certificate' });
  });
});
