/**
 * The callers of the authorization matrix and what they act on, against a real controller:
 * - `none`: no zt-session;
 * - `partial`: an identity whose auth policy requires TOTP and has not enrolled, so its session owes a code;
 * - `client`: a fully signed-in non-admin identity, reaching one service and holding an edge session for it,
 *   with an MFA enrollment started but not verified (so its own MFA routes have something to show);
 * - `other`: another non-admin identity, aimed at the client's per-identity resources (sessions, MFA);
 * - `admin`: an administrator.
 * `fresh(who)` makes a new identity of the same kind and signs it in, for requests that change the caller.
 */
import { generate } from 'otplib';
import { Api, CLIENT, MGMT, createUser, authPolicyBody } from './api.js';
import { ADMIN_PASSWORD } from './controller.js';

export type Who = 'none' | 'partial' | 'client' | 'other' | 'admin';
export const CALLERS: Who[] = ['none', 'partial', 'client', 'other', 'admin'];

const PASSWORD = 'matrix-password';
let counter = 0;
export const unique = (prefix: string) => `${prefix}-${++counter}-${Math.random().toString(36).slice(2, 7)}`;

export const AUTH_POLICY_BODY = authPolicyBody;

export class AuthWorld {
  readonly tokens = {} as Record<Exclude<Who, 'none'>, string>;
  readonly ids = {} as {
    partial: string;
    client: string;
    other: string;
    service: string;
    check: string;
    totpPolicy: string;
  };

  private constructor(
    readonly url: string,
    readonly admin: Api,
  ) {}

  static async start(url: string): Promise<AuthWorld> {
    const admin = new Api(url);
    const res = await admin.login('admin', ADMIN_PASSWORD);
    if (res.status !== 200) throw new Error('admin login failed');
    const w = new AuthWorld(url, admin);
    w.ids.totpPolicy = await w.create('auth-policies', AUTH_POLICY_BODY('matrix-totp', true));
    w.ids.service = await w.create('services', { name: 'matrix-service' });
    w.ids.check = await w.create('posture-checks', {
      name: 'matrix-os',
      typeId: 'OS',
      operatingSystems: [{ type: 'Linux', versions: [] }],
    });
    await w.create('service-policies', {
      name: 'matrix-policy',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: ['#matrix-client'],
      serviceRoles: [`@${w.ids.service}`],
      postureCheckRoles: [],
    });
    for (const who of ['partial', 'client', 'other', 'admin'] as const) {
      const { id, token } = await w.newCaller(who);
      w.tokens[who] = token;
      if (who !== 'admin') w.ids[who] = id;
    }
    return w;
  }

  /** A new identity of the kind `who` stands for, signed in on the client API. */
  async newCaller(who: Exclude<Who, 'none'>): Promise<{ id: string; token: string }> {
    const name = unique(`matrix-${who}`);
    const extra: Record<string, Record<string, unknown>> = {
      partial: { authPolicyId: this.ids.totpPolicy },
      client: { roleAttributes: ['matrix-client'] },
      other: { roleAttributes: ['matrix-other'] },
      admin: { isAdmin: true },
    };
    const id = await createUser(this.admin, name, PASSWORD, extra[who]);
    const api = new Api(this.url);
    const login = await api.login(name, PASSWORD, CLIENT);
    if (login.status !== 200) throw new Error(`login of ${who} failed: ${JSON.stringify(login.body)}`);
    if (who === 'client') {
      const enrolled = await api.post(`${CLIENT}/current-identity/mfa`, {});
      if (enrolled.status !== 201) throw new Error(`enrollment failed: ${JSON.stringify(enrolled.body)}`);
    }
    return { id, token: api.token! };
  }

  token(who: Who): string | undefined {
    return who === 'none' ? undefined : this.tokens[who];
  }

  as(who: Who): Api {
    return new Api(this.url, this.token(who));
  }

  async create(collection: string, body: Record<string, unknown>): Promise<string> {
    const res = await this.admin.post(`${MGMT}/${collection}`, body);
    if (res.status !== 201)
      throw new Error(`POST ${collection} failed (${res.status}): ${JSON.stringify(res.body)}`);
    return res.body.data.id as string;
  }

  /** The client's edge session for its service (created if it was deleted). */
  async clientSession(): Promise<string> {
    const res = await this.as('client').post(`${CLIENT}/sessions`, {
      serviceId: this.ids.service,
      type: 'Dial',
    });
    if (res.status !== 201) throw new Error(`client session failed: ${JSON.stringify(res.body)}`);
    return res.body.data.id as string;
  }

  /** The TOTP code the client's authenticator app would show now (its enrollment is unverified). */
  async clientCode(): Promise<string> {
    const status = await this.as('client').get(`${CLIENT}/current-identity/mfa`);
    const secret = new URL(status.body.data.provisioningUrl as string).searchParams.get('secret')!;
    return generate({ secret, epoch: Math.floor(Date.now() / 1000) });
  }

  /** Whether the client still has its unverified enrollment and its edge session (after `other` tried). */
  async clientIntact(): Promise<{ enrollment: boolean; verified: boolean; sessions: number }> {
    const mfa = await this.as('client').get(`${CLIENT}/current-identity/mfa`);
    const sessions = await this.as('client').get(`${CLIENT}/sessions`);
    return {
      enrollment: mfa.status === 200,
      verified: mfa.body?.data?.isVerified === true,
      sessions: sessions.body.data.length as number,
    };
  }
}
