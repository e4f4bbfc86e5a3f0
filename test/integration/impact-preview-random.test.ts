/**
 * The impact preview's answer is what saving then does, over generated posture data: a few hundred identities
 * (OS, domain and process facts, none, one or two API sessions with or without a TOTP pass), several services,
 * posture checks of four types and Dial and Bind policies, all drawn from a seeded PRNG. Each round draws a
 * random change of a check or a policy (a field, its attributes or roles, a new one, a deletion), previews it,
 * saves it through the management API, and compares the preview's newlyRefused and newlyGranted with the
 * difference of every identity's real Dial access read before and after the save
 * (`GET /identities/{id}/service-access`, over the saved catalogue), their reasons with the checks that really
 * refuse. Identities holding one API session are also asked through the client API (`GET /services` with
 * their own session), which must agree with the management view: the session the preview evaluates is the
 * one real access is decided for.
 *
 * The seed is printed with every failure; `PREVIEW_SEED=<n>` replays one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { Api, CLIENT, MGMT } from '../helpers/api.js';
import { PostureWorld } from '../helpers/posture-world.js';
import { seedApiSession } from '../../bench/lib/seed-store.js';
import { PREVIEW_LIST_LIMIT } from '../../controller/access/preview/impact-preview.js';
import type { Identity } from '../../controller/model.js';

const SEED = Number(process.env.PREVIEW_SEED ?? Math.floor(Math.random() * 2 ** 31));
const IDENTITIES = 240;
const SERVICES = 6;
const ROUNDS = 10;

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const some = <T>(items: readonly T[], max: number): T[] => {
    const chosen = new Set<T>();
    const count = int(max + 1);
    for (let i = 0; i < count; i++) chosen.add(pick(items));
    return [...chosen];
  };
  return { next, int, pick, some, chance: (p: number) => next() < p };
}

const r = prng(SEED);
const because = (what: string) => `${what} (seed ${SEED}; replay with PREVIEW_SEED=${SEED})`;

const TEAMS = ['t0', 't1', 't2', 't3', 't4'];
const SERVICE_GROUPS = ['s0', 's1', 's2'];
const CHECK_GROUPS = ['c0', 'c1', 'c2', 'c3'];
const DOMAINS = ['corp.example', 'lab.example', 'home.example'];
const HASHES = ['a'.repeat(64), 'b'.repeat(64)];
const LINUX = ['5.4.0', '5.15.0', '6.1.0', '6.8.0', '6.11.2'];
const RANGES = ['>=5.0.0', '>=5.10.0', '>=6.0.0', '>=6.5.0', '<6.0.0', '>=6.8.0 <7'];
const MINUTE = 60_000;

let w: PostureWorld;
const identities: Identity[] = [];
/** identity id → the token of its only API session (identities with exactly one) */
const singleSession = new Map<string, string>();
const serviceIds: string[] = [];
let counter = 0;

/** A random body for a check of `typeId` (all of its own fields). */
function checkFields(typeId: string): Record<string, unknown> {
  switch (typeId) {
    case 'OS':
      return { operatingSystems: [{ type: 'Linux', versions: r.some(RANGES, 2) }] };
    case 'DOMAIN': {
      // Drawn once: a second draw for the value could be the empty list the first one was checked against.
      const domains = r.some(DOMAINS, 2);
      return { domains: domains.length ? domains : ['corp.example'] };
    }
    case 'PROCESS':
      return { process: { osType: 'Linux', path: '/opt/agent', hashes: r.some(HASHES, 1) } };
    default:
      return { timeoutSeconds: r.pick([-1, 3600, 7 * 24 * 3600]) };
  }
}
const newCheck = () => {
  const typeId = r.pick(['OS', 'DOMAIN', 'PROCESS', 'MFA']);
  return {
    name: `check-${++counter}`,
    typeId,
    roleAttributes: r.some(CHECK_GROUPS, 2),
    ...checkFields(typeId),
  };
};

function roles(kind: 'identity' | 'service' | 'check', ids: readonly string[]): string[] {
  if (kind === 'identity' && r.chance(0.1)) return ['#all'];
  const groups = kind === 'identity' ? TEAMS : kind === 'service' ? SERVICE_GROUPS : CHECK_GROUPS;
  const chosen = r.some(
    groups.map((g) => `#${g}`),
    2,
  );
  if (ids.length && r.chance(0.3)) chosen.push(`@${r.pick(ids)}`);
  return kind === 'check' || chosen.length ? chosen : [`#${r.pick(groups)}`];
}
const newPolicy = (checkIds: string[]) => ({
  name: `policy-${++counter}`,
  type: r.chance(0.8) ? 'Dial' : 'Bind',
  semantic: r.pick(['AnyOf', 'AllOf']),
  identityRoles: roles(
    'identity',
    identities.map((i) => i.id),
  ),
  serviceRoles: roles('service', serviceIds),
  postureCheckRoles: roles('check', checkIds),
});

const listAll = async (collection: string) =>
  (await w.admin.get(`${MGMT}/${collection}?limit=500`)).body.data as { id: string; typeId?: string }[];

/** Everything about one pair real access says: granted to Dial, and the checks failing in its Dial policies. */
interface PairAccess {
  granted: boolean;
  failing: string[];
}

/** Every identity's real Dial access to every service, read over the saved catalogue. */
async function realAccess(): Promise<Map<string, PairAccess>> {
  const access = new Map<string, PairAccess>();
  // Every identity, the administrator's too: a drawn policy selecting #all selects it as well.
  for (const identity of await listAll('identities')) {
    const res = await w.admin.get(`${MGMT}/identities/${identity.id}/service-access?limit=500`);
    expect(res.status, because('service-access')).toBe(200);
    for (const a of res.body.data as any[]) {
      const dial = a.policies.filter((p: any) => p.type === 'Dial');
      const failing = new Set<string>();
      for (const p of dial) for (const c of p.postureChecks) if (!c.isPassing) failing.add(c.id);
      access.set(`${identity.id} ${a.service.id}`, {
        granted: a.granted.Dial === true,
        failing: [...failing].sort(),
      });
    }
    const token = singleSession.get(identity.id);
    if (token) {
      // The client's own view, for its own session: Dial granted when a Dial policy's query set passes.
      const client = await new Api(w.controller.url, token).get(`${CLIENT}/services?limit=500`);
      expect(client.status, because('client GET /services')).toBe(200);
      for (const s of client.body.data as any[]) {
        const dial = (s.postureQueries as any[]).some((q) => q.policyType === 'Dial' && q.isPassing);
        const key = `${identity.id} ${s.id}`;
        expect(dial, because(`client and management views of ${key}`)).toBe(
          access.get(key)?.granted ?? false,
        );
      }
    }
  }
  return access;
}

/** The pairs whose Dial access differs, with the checks refusing on the refusing side. */
function flipped(before: Map<string, PairAccess>, after: Map<string, PairAccess>) {
  const refused = new Map<string, string[]>();
  const granted = new Map<string, string[]>();
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const was = before.get(key) ?? { granted: false, failing: [] };
    const will = after.get(key) ?? { granted: false, failing: [] };
    if (was.granted && !will.granted) refused.set(key, will.failing);
    if (!was.granted && will.granted) granted.set(key, was.failing);
  }
  return { refused, granted };
}

/** The pairs of a preview list, with their reasons' check ids (`created`: the saved id of a check it created). */
function asPairs(items: any[], created: string | undefined): Map<string, string[]> {
  return new Map(
    items.map((i) => [
      `${i.identityId} ${i.serviceId}`,
      (i.reasons as { postureCheckId: string | null }[]).map((c) => c.postureCheckId ?? created!).sort(),
    ]),
  );
}

function expectSame(
  preview: any,
  expected: ReturnType<typeof flipped>,
  what: string,
  created: string | undefined,
) {
  expect(preview.newlyRefusedCount, because(`${what}: newlyRefusedCount`)).toBe(expected.refused.size);
  expect(preview.newlyGrantedCount, because(`${what}: newlyGrantedCount`)).toBe(expected.granted.size);
  for (const [list, wanted] of [
    [preview.newlyRefused, expected.refused],
    [preview.newlyGranted, expected.granted],
  ] as const) {
    expect(list.length, because(`${what}: list length`)).toBe(Math.min(wanted.size, PREVIEW_LIST_LIMIT));
    const got = asPairs(list, created);
    if (wanted.size <= PREVIEW_LIST_LIMIT)
      expect(got, because(`${what}: pairs and their reasons`)).toEqual(wanted);
    else
      for (const [key, reasons] of got) expect(reasons, because(`${what}: ${key}`)).toEqual(wanted.get(key));
  }
  const refusedIdentities = new Set([...expected.refused.keys()].map((k) => k.split(' ')[0]));
  const refusedServices = new Set([...expected.refused.keys()].map((k) => k.split(' ')[1]));
  expect(preview.identitiesRefused, because(`${what}: identitiesRefused`)).toBe(refusedIdentities.size);
  expect(preview.servicesRefused, because(`${what}: servicesRefused`)).toBe(refusedServices.size);
}

/** A random change: [collection, preview body, the write that saves it]. */
async function randomChange(): Promise<{ what: string; collection: string; body: Record<string, any> }> {
  const checks = await listAll('posture-checks');
  const policies = await listAll('service-policies');
  if (r.chance(0.5)) {
    const roll = r.next();
    if (roll < 0.2 || checks.length < 2)
      return { what: 'new check', collection: 'posture-checks', body: newCheck() };
    const check = r.pick(checks);
    if (roll < 0.3)
      return {
        what: 'check deleted',
        collection: 'posture-checks',
        body: { id: check.id, delete: true, cascade: true },
      };
    const body: Record<string, unknown> = { id: check.id };
    if (r.chance(0.6)) Object.assign(body, checkFields(check.typeId!));
    if (r.chance(0.5)) body.roleAttributes = r.some(CHECK_GROUPS, 2);
    if (Object.keys(body).length === 1) body.roleAttributes = [];
    return { what: `check ${check.typeId} changed`, collection: 'posture-checks', body };
  }
  const roll = r.next();
  const checkIds = checks.map((c) => c.id);
  if (roll < 0.2 || policies.length < 2)
    return { what: 'new policy', collection: 'service-policies', body: newPolicy(checkIds) };
  const policy = r.pick(policies);
  if (roll < 0.3)
    return { what: 'policy deleted', collection: 'service-policies', body: { id: policy.id, delete: true } };
  const fresh = newPolicy(checkIds);
  const body: Record<string, unknown> = { id: policy.id };
  for (const field of ['type', 'semantic', 'identityRoles', 'serviceRoles', 'postureCheckRoles'] as const)
    if (r.chance(0.35)) body[field] = fresh[field];
  if (Object.keys(body).length === 1) body.postureCheckRoles = fresh.postureCheckRoles;
  return { what: 'policy changed', collection: 'service-policies', body };
}

/** Saves the change; answers the id of what it created, if it created something. */
async function save(collection: string, body: Record<string, any>): Promise<string | undefined> {
  const { id, delete: remove, cascade: _cascade, ...fields } = body;
  const res = remove
    ? await w.admin.delete(`${MGMT}/${collection}/${id}?cascade=true`)
    : id
      ? await w.admin.patch(`${MGMT}/${collection}/${id}`, fields)
      : await w.admin.post(`${MGMT}/${collection}`, fields);
  expect([200, 201], because(`saving ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`)).toContain(
    res.status,
  );
  return res.status === 201 ? (res.body.data.id as string) : undefined;
}

beforeAll(async () => {
  w = await PostureWorld.start();
  for (let i = 0; i < SERVICES; i++) serviceIds.push(await w.service(r.some(SERVICE_GROUPS, 2), `svc-${i}`));
  const checkIds: string[] = [];
  for (const typeId of ['OS', 'OS', 'DOMAIN', 'PROCESS', 'MFA', 'MFA'])
    checkIds.push(
      await w.check({
        name: `check-${++counter}`,
        typeId,
        roleAttributes: r.some(CHECK_GROUPS, 2),
        ...checkFields(typeId),
      }),
    );
  const { store } = w.ctx;
  const now = Date.now();
  // Identities, their facts and API sessions, straight into the store: hundreds of sign-ins and reports
  // through the API would take minutes for what this test is not about.
  await store.transaction(async () => {
    for (let i = 0; i < IDENTITIES; i++) {
      const at = new Date(now);
      const identity: Identity = {
        id: randomUUID(),
        name: `person-${String(i).padStart(3, '0')}`,
        tags: {},
        createdAt: at,
        updatedAt: at,
        type: 'User',
        isAdmin: false,
        isDefaultAdmin: false,
        roleAttributes: r.some(TEAMS, 2),
        authPolicyId: 'default',
        externalId: null,
        disabled: false,
      };
      await store.identities.create(identity);
      identities.push(identity);
      const slot = { postureCheckId: checkIds[0]!, lastUpdatedAt: at };
      if (r.chance(0.85))
        await store.posture.data.setOs(identity.id, {
          ...slot,
          type: 'Linux',
          version: r.pick(LINUX),
          build: null,
        });
      if (r.chance(0.7))
        await store.posture.data.setDomain(identity.id, { ...slot, domain: r.pick(DOMAINS) });
      if (r.chance(0.6))
        await store.posture.data.setProcess(identity.id, {
          ...slot,
          path: '/opt/agent',
          isRunning: r.chance(0.8),
          hash: r.pick(HASHES),
          signerFingerprints: [],
        });
      const sessions = r.pick([0, 1, 1, 2]);
      for (let s = 0; s < sessions; s++) {
        const { id, token } = await seedApiSession(store, identity.id, 'postern-preview-test');
        // Far from every MFA timeout drawn above (1 h, 7 days), so the test's own duration changes nothing.
        const passed = r.pick([null, now - 10 * MINUTE, now - 2 * 24 * 60 * MINUTE]);
        await store.posture.data.updateApiSession(id, identity.id, {
          mfaPassedAt: passed === null ? null : new Date(passed),
        });
        // Two sessions: the later one is the most recently active (the one the preview and real access use).
        await store.apiSessions.touch(id, new Date(now - (sessions - s) * MINUTE));
        if (sessions === 1) singleSession.set(identity.id, token);
      }
    }
  });
  for (let i = 0; i < 6; i++) await w.create('service-policies', newPolicy(checkIds));
}, 300_000);

afterAll(() => w?.dispose());

describe(`impact preview against saving, randomized (seed ${SEED})`, () => {
  it('reads posture data in bulk as it reads it one identity at a time', async () => {
    const ids = identities.map((i) => i.id);
    const many = await w.ctx.store.posture.data.loadMany(ids);
    for (const id of ids)
      expect(many.get(id), because(`loadMany of ${id}`)).toEqual(await w.ctx.store.posture.data.load(id));
  });

  it('reads only the parts asked for, each as the whole read has it', async () => {
    const ids = identities.map((i) => i.id);
    const whole = await w.ctx.store.posture.data.loadMany(ids);
    const asks = [
      { kinds: ['os'] },
      { kinds: ['domain', 'mac'], processes: true },
      { kinds: [], apiSessions: true },
    ];
    for (const parts of asks) {
      const some = await w.ctx.store.posture.data.loadMany(ids, parts);
      for (const id of ids) {
        const [got, all] = [some.get(id)!, whole.get(id)!];
        const label = because(`${JSON.stringify(parts)} of ${id}`);
        for (const kind of parts.kinds as ('os' | 'mac' | 'domain')[])
          expect(got[kind], label).toEqual(all[kind]);
        if (parts.processes) expect(got.processes, label).toEqual(all.processes);
        if (parts.apiSessions) expect(got.apiSessions, label).toEqual(all.apiSessions);
      }
    }
  });

  it('newlyRefused and newlyGranted are exactly what the saved change does, with its reasons', async () => {
    let before = await realAccess();
    let changed = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const { what, collection, body } = await randomChange();
      const label = `round ${round}, ${what}: ${JSON.stringify(body)}`;
      const preview = await w.admin.post(`${MGMT}/${collection}/preview`, body);
      if (preview.status !== 200) {
        // A drawn change the write itself refuses (a delete some policy still names): nothing to compare.
        expect([400, 409], because(`${label}: ${JSON.stringify(preview.body)}`)).toContain(preview.status);
        continue;
      }
      w.checked('POST', `${MGMT}/${collection}/preview`, preview);
      const created = await save(collection, body);
      const after = await realAccess();
      const expected = flipped(before, after);
      if (expected.refused.size + expected.granted.size > 0) changed++;
      expectSame(preview.body.data, expected, label, created);
      before = after;
    }
    // Not a vacuous run: some drawn changes did change access (a seed where none does is reported).
    expect(changed, because('rounds that changed some access')).toBeGreaterThan(0);
    // Each round reads every identity's access over HTTP, twice for some: minutes on a loaded machine.
  }, 900_000);
});
