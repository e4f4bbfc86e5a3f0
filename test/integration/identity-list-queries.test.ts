/**
 * A page of identities costs the same few store reads whatever its size ("no N+1 queries on list routes"),
 * and every row still shows its own authenticators, API sessions, MFA state and enrollments.
 *
 * The reads are counted as calls on the store's repositories, the face both backends share, so the same test
 * holds on SQLite and PostgreSQL; each read the page makes is one statement. Only calls made from inside the
 * page's load are counted (an AsyncLocalStorage marks them), not the controller's own background work. Reading
 * each row's related rows one at a time cost four calls per row (authenticators, sessions, MFA, enrollments):
 * 21 for a page of 5, 101 for 25, which the equality below refuses.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiSession, Identity } from '../../controller/model.js';
import type { Store } from '../../controller/store/repository.js';
import { identityWireOf } from '../../controller/identities/identity-routes.js';
import { FLAT_REPOSITORIES } from '../../controller/store/repository-names.js';
import { Api, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';

const ROWS = 30;
const at = (s: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, s));

/** Every repository of the store; the posture store's parts are not counted. */
const REPOSITORIES = [...FLAT_REPOSITORIES, 'posture'] as const;

const counting = new AsyncLocalStorage<string[]>();

/** The methods an object answers to, its own and its class's (SQLite's facade has its own, PostgreSQL's not). */
function methodsOf(target: object): string[] {
  const names = new Set<string>();
  for (let o: object | null = target; o && o !== Object.prototype; o = Object.getPrototypeOf(o) as object)
    for (const name of Object.getOwnPropertyNames(o))
      if (name !== 'constructor' && typeof (target as Record<string, unknown>)[name] === 'function')
        names.add(name);
  return [...names];
}

/**
 * Makes every repository call note itself (`authenticators.listByIdentity`) in the counting scope, if any. What
 * a repository calls on itself (PostgreSQL's row helpers) runs outside the scope: it is part of the call made.
 */
function countRepositoryCalls(store: Store): void {
  for (const repositoryName of REPOSITORIES) {
    const repository = store[repositoryName] as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const method of methodsOf(repository)) {
      const original = repository[method]!;
      repository[method] = (...args: unknown[]) => {
        const calls = counting.getStore();
        if (!calls) return original.apply(repository, args);
        calls.push(`${repositoryName}.${method}`);
        return counting.exit(() => original.apply(repository, args));
      };
    }
  }
}

/** The repository calls `work` made, sorted. */
async function repositoryCallsOf(work: () => Promise<unknown>): Promise<string[]> {
  const calls: string[] = [];
  await counting.run(calls, work);
  return calls.sort();
}

let tc: TestController;
let admin: Api;
const rows: { id: string; name: string; n: number }[] = [];

const session = (n: number, identityId: string, created: number): ApiSession => ({
  id: `session-${n}-${created}`,
  identityId,
  authenticatorId: `login-${n}`,
  ipAddress: '192.0.2.7',
  configTypes: [],
  envInfo: { os: `os-of-${n}-at-${created}` },
  sdkInfo: { type: 'postern', version: `0.${created}` },
  isMfaRequired: false,
  isMfaComplete: false,
  createdAt: at(created),
  updatedAt: at(created),
  lastActivityAt: at(created + 1),
});

/**
 * ROWS identities, each with its own mix: an ott or updb enrollment (every third has none), a password or
 * certificate login, zero or two API sessions, and a verified MFA enrollment for some.
 */
async function seed(): Promise<void> {
  const { store } = tc.ctx;
  for (let n = 0; n < ROWS; n++) {
    const name = `listed-${String(n).padStart(2, '0')}`;
    const enrollment = n % 3 === 0 ? { ott: true } : n % 3 === 1 ? { updb: `${name}-enrollee` } : undefined;
    const created = await admin.post(`${MGMT}/identities`, {
      name,
      type: 'User',
      isAdmin: false,
      ...(enrollment ? { enrollment } : {}),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.id as string;
    rows.push({ id, name, n });
    const base = { id: `login-${n}`, identityId: id, createdAt: at(n), updatedAt: at(n) };
    if (n % 2 === 0)
      await store.authenticators.create({ ...base, method: 'updb', username: name, passwordHash: 'x' });
    else
      await store.authenticators.create({ ...base, method: 'cert', fingerprint: `fp-${n}`, certPem: 'pem' });
    if (n % 5 < 2) {
      // Written newest first: the row shows the newest, whatever order they were written in.
      await store.apiSessions.create(session(n, id, 200 + n), `token-${n}-b`);
      await store.apiSessions.create(session(n, id, 100 + n), `token-${n}-a`);
    }
    if (n % 7 === 0) {
      const mfa = {
        id: `mfa-${n}`,
        identityId: id,
        isVerified: false,
        sealedSecret: Buffer.from('sealed'),
        lastStep: null,
        createdAt: at(n),
        updatedAt: at(n),
        verifiedAt: null,
        startedBy: null,
      };
      expect(await store.mfa.create(mfa, [])).toBe(true);
      expect(await store.mfa.markVerified(mfa, 1, at(n))).toBe(true);
    }
  }
}

beforeAll(async () => {
  tc = await startTestController();
  admin = new Api(tc.url);
  expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
  await seed();
  countRepositoryCalls(tc.ctx.store);
});
afterAll(() => tc?.dispose());

/** The seeded identities, as the store holds them, in the order seeded. */
async function seededIdentities(): Promise<Identity[]> {
  const byId = new Map((await tc.ctx.store.identities.getMany(rows.map((r) => r.id))).map((i) => [i.id, i]));
  return rows.map((r) => byId.get(r.id)!);
}

describe('the identity list', () => {
  it('reads a page of 25 with the same few store calls as a page of 5', async () => {
    const identities = await seededIdentities();
    const render = async (page: Identity[]) => {
      const wire = await identityWireOf(tc.ctx, page, 'secrets', tc.parts.enrollment);
      return page.map(wire);
    };
    const five = await repositoryCallsOf(() => render(identities.slice(0, 5)));
    const twentyFive = await repositoryCallsOf(() => render(identities.slice(0, 25)));
    expect(twentyFive).toEqual(five);
    // The auth policies, authenticators, API sessions, MFA enrollments and enrollments: one read each.
    expect(twentyFive).toEqual([
      'apiSessions.listByIdentities',
      'authPolicies.getMany',
      'authenticators.listByIdentities',
      'enrollments.listOutstandingByIdentities',
      'mfa.verifiedAmong',
    ]);
  });

  it('shows each row what belongs to it, as its own detail shows it', async () => {
    const filter = encodeURIComponent(`name contains "listed-" sort by name asc limit ${ROWS}`);
    const list = await admin.get(`${MGMT}/identities?filter=${filter}`);
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    const listed = list.body.data as Record<string, any>[];
    expect(listed.map((i) => i.name)).toEqual(rows.map((r) => r.name));

    for (const { id, name, n } of rows) {
      const row = listed.find((i) => i.id === id)!;
      const detail = await admin.get(`${MGMT}/identities/${id}`);
      expect(row).toEqual(detail.body.data);

      expect(row.authenticators).toEqual(
        n % 2 === 0
          ? { updb: { id: `login-${n}`, username: name } }
          : { cert: { id: `login-${n}`, fingerprint: `fp-${n}` } },
      );
      expect(row.hasApiSession).toBe(n % 5 < 2);
      expect(row.envInfo).toEqual(n % 5 < 2 ? { os: `os-of-${n}-at-${200 + n}` } : {});
      expect(row.lastActivityAt).toBe(n % 5 < 2 ? at(201 + n).toISOString() : null);
      expect(row.isMfaEnabled).toBe(n % 7 === 0);
      const outstanding = await tc.ctx.store.enrollments.listOutstanding({
        identityId: id,
        limit: 10,
        offset: 0,
      });
      expect(outstanding.items.map((e) => [e.method, e.id])).toEqual(
        n % 3 === 2 ? [] : [[n % 3 === 0 ? 'ott' : 'updb', expect.any(String)]],
      );
      expect(
        Object.entries(row.enrollment as Record<string, { id: string }>).map(([method, e]) => [method, e.id]),
      ).toEqual(outstanding.items.map((e) => [e.method, e.id]));
      if (n % 3 === 1) expect(row.enrollment.updb.username).toBe(`${name}-enrollee`);
    }
  });
});
