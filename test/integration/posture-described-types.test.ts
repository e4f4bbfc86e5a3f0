/**
 * Postern's posture types (DISK_ENCRYPTION, FIREWALL, SCREEN_LOCK, AGENT_VERSION) end to end against a real
 * controller, on the store the project picks (`--project sqlite` / `--project postgres`): the check body is
 * validated field by field, the failing query on GET /services carries the type's own reason code (waiting,
 * unknown, failing), the session is refused and recorded, the reported fact is stored and shown back, and the
 * right fact (or agent version) grants the session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, CLIENT, MGMT, createUser } from '../helpers/api.js';
import { PostureWorld, unique, type TestUser } from '../helpers/posture-world.js';

let world: PostureWorld;
beforeAll(async () => {
  world = await PostureWorld.start();
});
afterAll(() => world?.dispose());

/** A check of `body`, a service and a Dial policy requiring it, and a user it applies to. */
async function setUp(body: Record<string, unknown>, login?: (name: string) => Promise<TestUser>) {
  const attr = unique('dept');
  const checkId = await world.check({ ...body, roleAttributes: [`${attr}-check`] });
  const serviceId = await world.service();
  await world.policy({
    identityRoles: [`#${attr}`],
    serviceRoles: [`@${serviceId}`],
    postureCheckRoles: [`#${attr}-check`],
  });
  const user = login ? await login(attr) : await world.user([attr]);
  return { checkId, serviceId, user };
}

/** The query's state on GET /services and the session request's status, after the report `items`. */
async function after(user: TestUser, serviceId: string, items: unknown[]) {
  if (items.length > 0) expect((await world.respondBulk(user, items)).status).toBe(201);
  const query = (await world.serviceOf(user, serviceId)).postureQueries[0].postureQueries[0];
  const session = await world.session(user, serviceId);
  return { query, status: session.status };
}

interface FactCase {
  typeId: string;
  check: Record<string, unknown>;
  /** reports in order, each with the reason code it leaves (null: passing, the session granted) */
  steps: [Record<string, unknown>, string | null][];
  /** wire field problems of bad check bodies */
  badChecks: [Record<string, unknown>, string][];
  /** a bad report item and the field it names */
  badReport: [Record<string, unknown>, string];
}

const FACT_CASES: FactCase[] = [
  {
    typeId: 'DISK_ENCRYPTION',
    check: { typeId: 'DISK_ENCRYPTION', allVolumes: true },
    steps: [
      [{ encrypted: null, unknownReason: 'manage-bde needs the service' }, 'DISK_ENCRYPTION_UNKNOWN'],
      [{ encrypted: false, allVolumesEncrypted: false }, 'DISK_NOT_ENCRYPTED'],
      [{ encrypted: true, allVolumesEncrypted: false }, 'DISK_VOLUMES_NOT_ENCRYPTED'],
      [{ encrypted: true }, 'DISK_ENCRYPTION_UNKNOWN'],
      [{ encrypted: true, allVolumesEncrypted: true }, null],
    ],
    badChecks: [[{ allVolumes: 'yes' }, 'allVolumes']],
    badReport: [{ encrypted: 'yes' }, 'encrypted'],
  },
  {
    typeId: 'FIREWALL',
    check: { typeId: 'FIREWALL' },
    steps: [
      [{ enabled: false }, 'FIREWALL_OFF'],
      [{ enabled: null }, 'FIREWALL_UNKNOWN'],
      [{ enabled: true }, null],
    ],
    badChecks: [],
    badReport: [{}, 'enabled'],
  },
  {
    typeId: 'SCREEN_LOCK',
    check: { typeId: 'SCREEN_LOCK', maxIdleMinutes: 10 },
    steps: [
      [{ lockEnabled: false, idleMinutes: 5 }, 'SCREEN_LOCK_OFF'],
      [{ lockEnabled: true, idleMinutes: 11 }, 'SCREEN_LOCK_TOO_LATE'],
      [{ lockEnabled: true, idleMinutes: null }, 'SCREEN_LOCK_UNKNOWN'],
      [{ lockEnabled: true, idleMinutes: 10 }, null],
    ],
    badChecks: [
      [{}, 'maxIdleMinutes'],
      [{ maxIdleMinutes: 0 }, 'maxIdleMinutes'],
      [{ maxIdleMinutes: 1441 }, 'maxIdleMinutes'],
      [{ maxIdleMinutes: '10' }, 'maxIdleMinutes'],
      [{ maxIdleMinutes: 2.5 }, 'maxIdleMinutes'],
    ],
    badReport: [{ lockEnabled: true, idleMinutes: -1 }, 'idleMinutes'],
  },
];

describe('Postern posture types, per type, through a real controller', () => {
  for (const c of FACT_CASES) {
    it(`${c.typeId}: validated, waits for data, fails with its own reasons, passes on the right fact`, async () => {
      for (const [bad, field] of c.badChecks) {
        const res = await world.admin.post(`${MGMT}/posture-checks`, {
          name: unique('bad'),
          typeId: c.typeId,
          ...bad,
        });
        expect(res.status, JSON.stringify(bad)).toBe(400);
        expect(res.body.error.cause.field).toBe(field);
      }
      const { checkId, serviceId, user } = await setUp(c.check);
      const detail = await world.admin.get(`${MGMT}/posture-checks/${checkId}`);
      expect(detail.body.data).toMatchObject({ ...c.check, id: checkId });
      expect(detail.body.data.options).toBeUndefined();

      const waiting = await after(user, serviceId, []);
      expect(waiting.query).toMatchObject({ id: checkId, queryType: c.typeId, isPassing: false });
      expect(waiting.query.reason).toEqual({ code: 'NO_DATA_YET', missing: c.typeId });
      expect(waiting.status).toBe(409);

      const [badItem, badField] = c.badReport;
      const bad = await world.respondBulk(user, [
        { id: checkId, typeId: c.typeId, ...c.steps.at(-1)![0] },
        { id: checkId, typeId: c.typeId, ...badItem },
      ]);
      expect(bad.status).toBe(400);
      expect(bad.body.error.cause.field).toBe(`[1].${badField}`);
      // Nothing of the refused request was stored.
      expect((await world.postureData(user.id)).body.data.facts).toEqual({});

      for (const [fact, code] of c.steps) {
        const state = await after(user, serviceId, [{ id: checkId, typeId: c.typeId, ...fact }]);
        if (code === null) {
          expect(state.query.isPassing, JSON.stringify(fact)).toBe(true);
          expect(state.status).toBe(201);
        } else {
          expect(state.query.isPassing, JSON.stringify(fact)).toBe(false);
          expect(state.query.reason.code).toBe(code);
          expect(state.status).toBe(409);
        }
      }
      const stored = (await world.postureData(user.id)).body.data.facts[c.typeId];
      expect(stored).toMatchObject({ postureCheckId: checkId, ...c.steps.at(-1)![0] });
      expect(typeof stored.lastUpdatedAt).toBe('string');

      const recorded = (await world.failures(user.id)).body.data;
      expect(recorded.length).toBe(c.steps.length);
      expect(recorded[0].policyFailures[0].checks[0]).toMatchObject({
        postureCheckId: checkId,
        postureCheckType: c.typeId,
      });
    });
  }

  it('keeps the reason of a null fact and the agent’s words for it', async () => {
    const { checkId, serviceId, user } = await setUp({ typeId: 'FIREWALL' });
    const state = await after(user, serviceId, [
      { id: checkId, typeId: 'FIREWALL', enabled: null, unknownReason: 'no firewall tool found' },
    ]);
    expect(state.query.reason).toEqual({ code: 'FIREWALL_UNKNOWN', unknownReason: 'no firewall tool found' });
    // The same report again only moves its time (the repeated-report path), and keeps the answer.
    const before = (await world.postureData(user.id)).body.data.facts.FIREWALL.lastUpdatedAt as string;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const again = await after(user, serviceId, [
      { id: checkId, typeId: 'FIREWALL', enabled: null, unknownReason: 'no firewall tool found' },
    ]);
    expect(again.query.reason.code).toBe('FIREWALL_UNKNOWN');
    const moved = (await world.postureData(user.id)).body.data.facts.FIREWALL.lastUpdatedAt as string;
    expect(Date.parse(moved)).toBeGreaterThan(Date.parse(before));
    // A changed report after it is stored and decided again.
    expect((await after(user, serviceId, [{ id: checkId, typeId: 'FIREWALL', enabled: true }])).status).toBe(
      201,
    );
  });

  it('AGENT_VERSION: reads sdkInfo.version from the sign-in; out of range, unknown and within range', async () => {
    const bad = await world.admin.post(`${MGMT}/posture-checks`, {
      name: unique('bad'),
      typeId: 'AGENT_VERSION',
      versions: '^1.4.0',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.cause.field).toBe('versions');

    const signIn = (version: string | undefined) => async (attr: string) => {
      const name = unique('user');
      const id = await createUser(world.admin, name, 'user-password', { roleAttributes: [attr] });
      const api = new Api(world.controller.url);
      const res = await api.post(`${CLIENT}/authenticate?method=password`, {
        username: name,
        password: 'user-password',
        sdkInfo: { type: 'postern-agent', ...(version === undefined ? {} : { version }) },
      });
      expect(res.status).toBe(200);
      api.token = res.headers.get('zt-session') ?? undefined;
      return { id, name, api, apiSessionId: res.body.data.id as string };
    };
    const check = { typeId: 'AGENT_VERSION', versions: '>=1.4.0 <2' };
    for (const [version, code] of [
      ['1.3.9', 'AGENT_VERSION_OUT_OF_RANGE'],
      ['2.0.0', 'AGENT_VERSION_OUT_OF_RANGE'],
      ['1.4.0-beta.1', 'AGENT_VERSION_OUT_OF_RANGE'],
      [undefined, 'AGENT_VERSION_UNKNOWN'],
      ['not a version', 'AGENT_VERSION_UNKNOWN'],
      ['1.4.0', null],
      ['1.99.3', null],
    ] as const) {
      const { serviceId, user } = await setUp(check, signIn(version));
      const state = await after(user, serviceId, []);
      if (code === null) {
        expect(state.query.isPassing, version).toBe(true);
        expect(state.status).toBe(201);
      } else {
        expect(state.query.isPassing, version).toBe(false);
        expect(state.query.reason.code, version).toBe(code);
        expect(state.status).toBe(409);
      }
    }
  });

  it('lists every type on GET /posture-check-types, Postern’s marked as extensions with their fields', async () => {
    const res = await world.admin.get(`${MGMT}/posture-check-types`);
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(res.body.data.map((t: { id: string }) => [t.id, t]));
    expect(Object.keys(byId)).toEqual([
      'OS',
      'MAC',
      'DOMAIN',
      'PROCESS',
      'PROCESS_MULTI',
      'MFA',
      'DISK_ENCRYPTION',
      'FIREWALL',
      'SCREEN_LOCK',
      'AGENT_VERSION',
    ]);
    expect(byId.OS).toMatchObject({ name: 'Operating System Check', extension: false });
    expect(byId.SCREEN_LOCK).toMatchObject({
      name: 'Screen Lock Check',
      extension: true,
      optionFields: [{ name: 'maxIdleMinutes', required: true, schema: { type: 'integer', minimum: 1 } }],
    });
    expect(Object.keys(byId.SCREEN_LOCK.reasons)).toContain('SCREEN_LOCK_TOO_LATE');
  });
});
