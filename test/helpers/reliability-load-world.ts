/**
 * The load test's world: 500 identities, each with its own API session, seeded straight into a data dir
 * (500 password logins would spend about a minute in scrypt on two cores, and logins are not what is under
 * load), a controller CLI child on that dir, and the checks, services and policies the agents report against.
 *
 * Agent i reports OS `Linux 5.<i>.<round>` and MAC 02:00:00:00:<i>. The OS check accepts `>=5.<k>.0`
 * (agents i >= k pass); the MAC check lists a subset of the agents' addresses; both move while agents report.
 */
import { rmSync } from 'node:fs';
import { openBackend } from '../../controller/backend/open-backend.js';
import { databaseFor } from './test-database.js';
import { seedApiSession, seedUsers } from '../../bench/lib/seed-store.js';
import { Api, MGMT } from './api.js';
import { ADMIN_PASSWORD, spawnController, tempDir, type ControllerProcess } from './controller.js';

export interface SimAgent {
  index: number;
  identityId: string;
  api: Api;
  mac: string;
}

export const macOf = (i: number) =>
  `02:00:00:00:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`;

export class LoadWorld {
  readonly ids = {} as {
    osCheck: string;
    macCheck: string;
    osService: string;
    macService: string;
    openService: string;
    macPolicy: string;
  };
  agents: SimAgent[] = [];
  admin!: Api;
  controller!: ControllerProcess;

  private constructor(readonly dataDir: string) {}

  static async start(count: number): Promise<LoadWorld> {
    const w = new LoadWorld(tempDir('postern-load-'));
    // The store the controller will open on this folder, either backend (test-database.ts).
    const backend = await openBackend({ dataDir: w.dataDir, database: await databaseFor(w.dataDir) });
    const store = backend.store;
    let sessions: { identityId: string; token: string }[];
    try {
      const names = Array.from({ length: count }, (_, i) => `load-agent-${i}`);
      await seedUsers(store, ['admin'], ADMIN_PASSWORD, [], true);
      const ids = await seedUsers(store, names, 'load-password', ['load-agents']);
      sessions = await store.transaction(async () => {
        const made: { identityId: string; token: string }[] = [];
        for (const identityId of ids)
          made.push({ identityId, token: (await seedApiSession(store, identityId, 'postern-load')).token });
        return made;
      });
    } finally {
      await backend.close();
    }
    w.controller = await spawnController(['--data-dir', w.dataDir, '--port', '0', '--log-level', 'warn'], {
      POSTERN_ADMIN_PASSWORD: ADMIN_PASSWORD,
    });
    w.admin = new Api(w.controller.url);
    if ((await w.admin.login('admin', ADMIN_PASSWORD)).status !== 200) throw new Error('admin login failed');
    w.agents = sessions.map((s, index) => ({
      index,
      identityId: s.identityId,
      api: new Api(w.controller.url, s.token),
      mac: macOf(index),
    }));

    w.ids.osCheck = await w.create('posture-checks', {
      name: 'load-os',
      typeId: 'OS',
      operatingSystems: [{ type: 'Linux', versions: ['>=5.0.0'] }],
    });
    w.ids.macCheck = await w.create('posture-checks', {
      name: 'load-mac',
      typeId: 'MAC',
      macAddresses: [macOf(0)],
    });
    w.ids.osService = await w.create('services', { name: 'load-os-service' });
    w.ids.macService = await w.create('services', { name: 'load-mac-service' });
    w.ids.openService = await w.create('services', { name: 'load-open-service' });
    const policy = (name: string, service: string, checks: string[]) =>
      w.create('service-policies', {
        name,
        type: 'Dial',
        semantic: 'AllOf',
        identityRoles: ['#load-agents'],
        serviceRoles: [`@${service}`],
        postureCheckRoles: checks.map((c) => `@${c}`),
      });
    await policy('load-os-policy', w.ids.osService, [w.ids.osCheck]);
    w.ids.macPolicy = await policy('load-mac-policy', w.ids.macService, [w.ids.macCheck]);
    await policy('load-open-policy', w.ids.openService, []);
    return w;
  }

  async create(collection: string, body: Record<string, unknown>): Promise<string> {
    const res = await this.admin.post(`${MGMT}/${collection}`, body);
    if (res.status !== 201)
      throw new Error(`POST ${collection} failed (${res.status}): ${JSON.stringify(res.body)}`);
    return res.body.data.id as string;
  }

  async dispose(): Promise<void> {
    await this.controller?.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
