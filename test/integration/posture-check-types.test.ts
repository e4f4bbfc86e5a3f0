/**
 * Access end to end, once per check type, against the real controller: the posture query fails on
 * GET /services, POST /sessions is refused with 409 INVALID_POSTURE, the refusal is recorded with actual and
 * expected values, a wrong posture response keeps it failing, the right one makes the query pass and the
 * session is granted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostureWorld, unique, type TestUser } from '../helpers/posture-world.js';

const HASH = 'ab'.repeat(32);
const OTHER_HASH = 'cd'.repeat(32);

interface Case {
  typeId: string;
  check: Record<string, unknown>;
  /** failure values recorded before any response, or after the wrong one */
  before: { actualValue: unknown; expectedValue: unknown };
  /** answers that keep the check failing, then answers that make it pass (built from the check id) */
  wrong: (checkId: string) => unknown[];
  right: (checkId: string) => unknown[];
  /** MFA state comes from TOTP, not from posture responses */
  pass?: (world: PostureWorld, user: TestUser) => Promise<void>;
}

const CASES: Case[] = [
  {
    typeId: 'OS',
    check: { typeId: 'OS', operatingSystems: [{ type: 'LINUX', versions: ['>=5.10.0 <7.0.0'] }] },
    before: {
      actualValue: { type: '', version: '' },
      expectedValue: [{ type: 'Linux', versions: ['>=5.10.0 <7.0.0'] }],
    },
    wrong: (id) => [{ id, typeId: 'OS', type: 'Linux', version: '5.4.0', build: '' }],
    right: (id) => [{ id, typeId: 'OS', type: 'Linux', version: '6.1.0', build: '' }],
  },
  {
    typeId: 'MAC',
    check: { typeId: 'MAC', macAddresses: ['AA-BB-CC-DD-EE-FF'] },
    before: { actualValue: [], expectedValue: ['aabbccddeeff'] },
    wrong: (id) => [{ id, typeId: 'MAC', macAddresses: ['11:22:33:44:55:66'] }],
    right: (id) => [{ id, typeId: 'MAC', macAddresses: ['11:22:33:44:55:66', 'aa:bb:cc:dd:ee:ff'] }],
  },
  {
    typeId: 'DOMAIN',
    check: { typeId: 'DOMAIN', domains: ['corp.example'] },
    before: { actualValue: '', expectedValue: ['corp.example'] },
    wrong: (id) => [{ id, typeId: 'DOMAIN', domain: 'WORKGROUP' }],
    right: (id) => [{ id, typeId: 'DOMAIN', domain: 'CORP.example' }],
  },
  {
    typeId: 'PROCESS',
    check: { typeId: 'PROCESS', process: { osType: 'Linux', path: '/usr/bin/edr', hashes: [HASH] } },
    before: {
      actualValue: { isRunning: false, hash: '', signerFingerprints: [], path: '/usr/bin/edr' },
      expectedValue: { osType: 'Linux', path: '/usr/bin/edr', hashes: [HASH] },
    },
    wrong: (id) => [
      {
        id,
        typeId: 'PROCESS',
        path: '/usr/bin/edr',
        isRunning: true,
        hash: OTHER_HASH,
        signerFingerprints: [],
      },
    ],
    right: (id) => [
      {
        id,
        typeId: 'PROCESS',
        path: '/usr/bin/edr',
        isRunning: true,
        hash: HASH.toUpperCase(),
        signerFingerprints: [],
      },
    ],
  },
  {
    typeId: 'PROCESS_MULTI',
    check: {
      typeId: 'PROCESS_MULTI',
      semantic: 'AllOf',
      processes: [
        { osType: 'Linux', path: '/usr/bin/edr' },
        { osType: 'Linux', path: '/usr/sbin/auditd' },
      ],
    },
    before: {
      actualValue: [
        { isRunning: false, hash: '', signerFingerprints: [], path: '/usr/bin/edr' },
        { isRunning: false, hash: '', signerFingerprints: [], path: '/usr/sbin/auditd' },
      ],
      expectedValue: [
        { osType: 'Linux', path: '/usr/bin/edr', hashes: [], signerFingerprints: [] },
        { osType: 'Linux', path: '/usr/sbin/auditd', hashes: [], signerFingerprints: [] },
      ],
    },
    wrong: (id) => [
      { id, typeId: 'PROCESS', path: '/usr/bin/edr', isRunning: true, hash: HASH },
      { id, typeId: 'PROCESS', path: '/usr/sbin/auditd', isRunning: false, hash: '' },
    ],
    right: (id) => [{ id, typeId: 'PROCESS', path: '/usr/sbin/auditd', isRunning: true, hash: HASH }],
  },
  {
    typeId: 'MFA',
    check: { typeId: 'MFA', timeoutSeconds: 0, promptOnWake: false, promptOnUnlock: false },
    before: {
      actualValue: { passedMfa: false, passedOnWake: false, passedOnUnlock: false, timedOut: true },
      expectedValue: { passedMfa: true, passedOnWake: false, passedOnUnlock: false, timedOut: false },
    },
    wrong: (id) => [{ id, typeId: 'ENDPOINT_STATE', woken: true }],
    right: () => [],
    pass: (world, user) => world.passMfa(user),
  },
];

describe('posture checks end to end, per type', () => {
  let world: PostureWorld;
  beforeAll(async () => {
    world = await PostureWorld.start();
  });
  afterAll(() => world?.dispose());

  for (const c of CASES) {
    it(`${c.typeId}: fails, is refused and recorded, then passes after the right posture response`, async () => {
      const attr = unique('dept');
      const checkId = await world.check({ ...c.check, roleAttributes: [`${attr}-check`] });
      const serviceId = await world.service();
      const policyId = await world.policy({
        identityRoles: [`#${attr}`],
        serviceRoles: [`@${serviceId}`],
        postureCheckRoles: [`#${attr}-check`],
      });
      const user = await world.user([attr]);

      const listed = await world.serviceOf(user, serviceId);
      expect(listed.permissions).toEqual(['Dial']);
      expect(listed.postureQueries).toEqual([
        expect.objectContaining({ policyId, policyType: 'Dial', isPassing: false }),
      ]);
      const query = listed.postureQueries[0].postureQueries[0];
      expect(query).toMatchObject({ id: checkId, queryType: c.typeId, isPassing: false });
      expect(query.timeout).toBe(-1);

      const refused = await world.session(user, serviceId);
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('INVALID_POSTURE');
      expect(refused.body.error.cause.message).toBe(
        `Failed to pass posture checks for service policies: [${policyId}]`,
      );
      expect(refused.body.error.cause.data[policyId]).toEqual([
        { id: checkId, typeId: c.typeId, isPassing: false },
      ]);

      const recorded = (await world.failures(user.id)).body.data;
      expect(recorded).toHaveLength(1);
      expect(recorded[0]).toMatchObject({
        apiSessionId: user.apiSessionId,
        serviceId,
        sessionType: 'Dial',
        policyFailures: [
          { policyId, checks: [{ postureCheckId: checkId, postureCheckType: c.typeId, ...c.before }] },
        ],
      });

      expect((await world.respondBulk(user, c.wrong(checkId))).status).toBe(201);
      expect((await world.serviceOf(user, serviceId)).postureQueries[0].isPassing).toBe(false);
      expect((await world.session(user, serviceId)).status).toBe(409);

      const right = c.right(checkId);
      if (right.length > 0) expect((await world.respondBulk(user, right)).status).toBe(201);
      await c.pass?.(world, user);

      const passing = await world.serviceOf(user, serviceId);
      expect(passing.postureQueries[0]).toMatchObject({
        isPassing: true,
        postureQueries: [{ id: checkId, isPassing: true }],
      });
      const granted = await world.session(user, serviceId);
      expect(granted.status).toBe(201);
      expect(granted.body.data).toMatchObject({
        serviceId,
        type: 'Dial',
        apiSessionId: user.apiSessionId,
        identityId: user.id,
        edgeRouters: [],
      });
      expect((await world.getSession(user, granted.body.data.id)).status).toBe(200);
      // Only the refusals are on record.
      expect((await world.failures(user.id)).body.data).toHaveLength(2);
    });
  }
});
