/**
 * A controller context on a real SQLite store in a temp dir, without HTTP, for driving posture evaluation
 * directly. Time is whatever `Date` says, so vitest's fake timers control both the clock and the timers.
 * Entities are written through the store's asynchronous face, as the controller writes them.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { defaultConfig } from '../../../controller/config.js';
import { createContext, type ControllerContext } from '../../../controller/platform/context.js';
import { createLogger } from '../../../controller/logger.js';
import type { ApiSession, Identity, Service, ServicePolicy } from '../../../controller/model.js';
import { SqliteStore } from '../../../controller/store/sqlite-store.js';
import { getCheckModule } from '../../../controller/posture/checks/index.js';
import type {
  IdentityPostureData,
  PostureCheck,
  PostureCheckSpec,
} from '../../../controller/posture-model.js';
import { tempDir } from '../../helpers/controller.js';

/** Posture data with nothing reported but what `fields` give. */
export const postureData = (fields: Partial<IdentityPostureData>): IdentityPostureData => ({
  identityId: 'i',
  os: null,
  mac: null,
  domain: null,
  processes: [],
  apiSessions: {},
  ...fields,
});

export class Fixture {
  readonly ctx: ControllerContext;
  readonly store: SqliteStore;
  private readonly dir = tempDir('postern-posture-unit-');

  constructor() {
    this.store = SqliteStore.open(this.dir);
    this.ctx = createContext(defaultConfig(this.dir), this.store, createLogger('silent'));
  }

  private base(name: string) {
    const now = this.ctx.clock.now();
    const id = randomUUID();
    return {
      id,
      // From the id, so never two alike: six random hex digits collided about once in 400 runs of 300 policies.
      name: `${name}-${id}`,
      createdAt: now,
      updatedAt: now,
      tags: {},
    };
  }

  async identity(roleAttributes: string[] = []): Promise<Identity> {
    const identity: Identity = {
      ...this.base('identity'),
      type: 'User',
      isAdmin: false,
      isDefaultAdmin: false,
      roleAttributes,
      authPolicyId: 'default',
      externalId: null,
      disabled: false,
    };
    await this.store.identities.create(identity);
    return identity;
  }

  async service(roleAttributes: string[] = []): Promise<Service> {
    const service: Service = {
      ...this.base('service'),
      roleAttributes,
      configs: [],
      encryptionRequired: true,
      terminatorStrategy: 'smartrouting',
      maxIdleTimeMillis: 0,
    };
    await this.store.services.create(service);
    return service;
  }

  async policy(fields: Partial<ServicePolicy>): Promise<ServicePolicy> {
    const policy: ServicePolicy = {
      ...this.base('policy'),
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [],
      serviceRoles: [],
      postureCheckRoles: [],
      ...fields,
    };
    await this.store.servicePolicies.create(policy);
    return policy;
  }

  async check(
    typeId: PostureCheck['typeId'],
    body: Record<string, unknown>,
    roleAttributes: string[] = [],
  ): Promise<PostureCheck> {
    const parsed = getCheckModule(typeId).parse(body, 'create');
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    const check = {
      ...(parsed.spec as PostureCheckSpec),
      ...this.base('check'),
      roleAttributes,
      version: 1,
    } as PostureCheck;
    await this.store.postureChecks.create(check);
    return check;
  }

  /**
   * An API session as login makes one, announced the way login announces it: created and announced in one
   * transaction, which resolves once the listeners (the posture engine's, when wired) have settled.
   */
  async apiSession(identity: Identity): Promise<ApiSession> {
    const now = this.ctx.clock.now();
    const session: ApiSession = {
      id: randomUUID(),
      identityId: identity.id,
      authenticatorId: 'none',
      ipAddress: '127.0.0.1',
      configTypes: [],
      envInfo: {},
      sdkInfo: { type: 'postern-agent', version: '0.1.0' },
      isMfaRequired: false,
      isMfaComplete: false,
      createdAt: now,
      updatedAt: now,
      lastActivityAt: now,
    };
    await this.store.transaction(async () => {
      await this.store.apiSessions.create(session, randomUUID());
      this.ctx.events.emit('apiSession.created', session.id, identity.id);
    });
    return session;
  }

  async dispose(): Promise<void> {
    await this.store.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
