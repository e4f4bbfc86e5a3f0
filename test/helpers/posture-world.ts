/**
 * A real controller plus the calls the posture tests make, each response checked against the schema the
 * controller publishes for its route (so every test also proves the wire shapes).
 */
import { expect } from 'vitest';
import { Api, CLIENT, MGMT, createUser, type ApiResponse } from './api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from './controller.js';
import { ResponseSchemas } from './openapi-check.js';
import type { ControllerConfig } from '../../controller/config.js';

export interface TestUser {
  id: string;
  name: string;
  api: Api;
  apiSessionId: string;
}

let counter = 0;
export const unique = (prefix: string) => `${prefix}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;

export class PostureWorld {
  private constructor(
    public controller: TestController,
    public admin: Api,
    public schemas: ResponseSchemas,
  ) {}

  static async start(overrides: Partial<ControllerConfig> = {}): Promise<PostureWorld> {
    const controller = await startTestController(overrides);
    const admin = new Api(controller.url);
    expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
    return new PostureWorld(controller, admin, await ResponseSchemas.load(controller.url));
  }

  get ctx() {
    return this.controller.ctx;
  }

  /** A response, checked against its documented schema. */
  checked<T>(method: string, template: string, res: ApiResponse<T>): ApiResponse<T> {
    this.schemas.assert(method, template, res);
    return res;
  }

  async create(collection: string, body: Record<string, unknown>): Promise<string> {
    const res = await this.admin.post(`${MGMT}/${collection}`, body);
    if (res.status !== 201) throw new Error(`${collection} create failed: ${JSON.stringify(res.body)}`);
    return res.body.data.id as string;
  }

  service = (attributes: string[] = [], name = unique('svc')) =>
    this.create('services', { name, roleAttributes: attributes });
  check = (body: Record<string, unknown>) =>
    this.create('posture-checks', { name: unique('check'), ...body });
  policy = (body: Record<string, unknown>) =>
    this.create('service-policies', { name: unique('policy'), type: 'Dial', semantic: 'AnyOf', ...body });

  /** A new identity with a password, logged in on the client API. */
  async user(attributes: string[] = [], name = unique('user')): Promise<TestUser> {
    const id = await createUser(this.admin, name, 'user-password', { roleAttributes: attributes });
    return { id, name, ...(await this.login(name)) };
  }

  async login(name: string): Promise<{ api: Api; apiSessionId: string }> {
    const api = new Api(this.controller.url);
    const res = await api.login(name, 'user-password', CLIENT);
    expect(res.status).toBe(200);
    return { api, apiSessionId: res.body.data.id as string };
  }

  /**
   * What the MFA module emits when a TOTP code is accepted, without entering one (the MFA tests use real codes);
   * resolves once the listeners have acted on it (the pass is stored).
   */
  passMfa(user: TestUser): Promise<void> {
    return this.ctx.events.publish('mfa.passed', user.apiSessionId, user.id);
  }

  services = async (user: TestUser) =>
    this.checked('GET', `${CLIENT}/services`, await user.api.get(`${CLIENT}/services?limit=500`));
  serviceOf = async (user: TestUser, serviceId: string) => {
    // The body is untyped JSON (the schema check has vouched for its shape); tests read it freely.
    const listed = (await this.services(user)).body.data;
    return listed.find((s: { id: string }) => s.id === serviceId);
  };
  session = async (user: TestUser, serviceId: string, type?: 'Dial' | 'Bind') =>
    this.checked(
      'POST',
      `${CLIENT}/sessions`,
      await user.api.post(`${CLIENT}/sessions`, { serviceId, ...(type ? { type } : {}) }),
    );
  getSession = async (user: TestUser, id: string) =>
    this.checked('GET', `${CLIENT}/sessions/{id}`, await user.api.get(`${CLIENT}/sessions/${id}`));
  respond = async (user: TestUser, body: unknown) =>
    this.checked(
      'POST',
      `${CLIENT}/posture-response`,
      await user.api.post(`${CLIENT}/posture-response`, body),
    );
  respondBulk = async (user: TestUser, body: unknown[]) =>
    this.checked(
      'POST',
      `${CLIENT}/posture-response-bulk`,
      await user.api.post(`${CLIENT}/posture-response-bulk`, body),
    );
  lastChangeAt = async (user: TestUser) =>
    this.checked(
      'GET',
      `${CLIENT}/current-api-session/service-updates`,
      await user.api.get(`${CLIENT}/current-api-session/service-updates`),
    ).body.data.lastChangeAt as string;
  postureData = async (identityId: string) =>
    this.checked(
      'GET',
      `${MGMT}/identities/{id}/posture-data`,
      await this.admin.get(`${MGMT}/identities/${identityId}/posture-data`),
    );
  failures = async (identityId: string) =>
    this.checked(
      'GET',
      `${MGMT}/identities/{id}/failed-service-requests`,
      await this.admin.get(`${MGMT}/identities/${identityId}/failed-service-requests`),
    );

  dispose(): Promise<void> {
    return this.controller.dispose();
  }
}
