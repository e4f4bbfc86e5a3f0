/**
 * Round trips to PostgreSQL per hot request. Every statement a request makes is a round trip between the
 * controller and a backend (on a small machine, a context switch each), so their number bounds a request's
 * rate on PostgreSQL (docs/PERFORMANCE.md, "Round trips per request"). Each request here runs alone, and
 * the statements it causes are counted wherever they run: the controller's HTTP server runs each request in
 * an AsyncLocalStorage context of the test's, which every query made on its behalf inherits, while
 * background passes (deadline takeover, router presence, the outbox's listener) run outside it.
 * The numbers are held exactly, so that a change that adds a round trip, or saves one, says so here.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT } from '../helpers/api.js';
import { PostureWorld, type TestUser } from '../helpers/posture-world.js';
import { PgDatabase } from '../../controller/store/postgres/pg-database.js';
import type { PgStore } from '../../controller/store/postgres/pg-store.js';

const onPostgres = process.env.POSTERN_TEST_BACKEND === 'postgres';

/** The statements sent while one request was handled, in order. */
const counting = new AsyncLocalStorage<string[]>();

let w: PostureWorld;
let user: TestUser;
let serviceId: string;
let osCheck: string;
let restoreQuery: () => void;

const linux = (version: string) => ({ id: osCheck, typeId: 'OS', type: 'Linux', version, build: '' });

/** Contexts handed from the test's request to the server's handling of it (requests are sent one at a time). */
const pendingContexts: string[][] = [];

/** The statements `request` caused; its answer must be `status`. */
async function statements(status: number, request: () => Promise<{ status: number }>): Promise<string[]> {
  const sent: string[] = [];
  pendingContexts.push(sent);
  const res = await request();
  expect(pendingContexts, 'the request reached the server').toEqual([]);
  expect(res.status).toBe(status);
  return sent;
}

describe.skipIf(!onPostgres)('round trips per hot request (PostgreSQL only: SQLite has none)', () => {
  beforeAll(async () => {
    w = await PostureWorld.start();
    // Every query of the store goes through PgDatabase's one private `query`, inside a transaction or not.
    const proto = PgDatabase.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
    const original = proto.query!;
    proto.query = function (this: unknown, sql: unknown, ...rest: unknown[]) {
      counting.getStore()?.push(String(sql).replace(/\s+/g, ' ').trim());
      return original.call(this, sql, ...rest);
    };
    restoreQuery = () => (proto.query = original);
    // Each request the controller's server receives runs in the context the test opened for it.
    const server = w.controller.app.server;
    const listeners = server.listeners('request') as ((q: IncomingMessage, s: ServerResponse) => void)[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const sent = pendingContexts.shift();
      const handle = () => listeners.forEach((l) => l.call(server, req, res));
      if (sent) counting.run(sent, handle);
      else handle();
    });
    osCheck = await w.check({ typeId: 'OS', operatingSystems: [{ type: 'Linux', versions: ['>=6.0.0'] }] });
    serviceId = await w.service(['hot']);
    await w.policy({ identityRoles: ['#hot'], serviceRoles: ['#hot'], postureCheckRoles: [`@${osCheck}`] });
    user = await w.user(['hot']);
  });

  afterAll(async () => {
    restoreQuery?.();
    await w?.dispose();
  });

  /** Repeated reports are counted together with the write behind of their times, which they share. */
  const REPEATS = 10;

  /**
   * The documented numbers (docs/PERFORMANCE.md, "Round trips per request"). Authentication (twice for a
   * request with a body) reads the API session, the identity and its auth policy from the caches the other
   * instances' announcements keep correct (store/postgres/cross-instance-caches.ts), as are the posture data,
   * the service and the router lists; a grant still reads its caller again inside its transaction. Not
   * counted: moving the API session's last activity, which happens at most once per 5 s whatever the request.
   */
  const EXPECTED = {
    [`${REPEATS} posture reports that repeat the stored facts, their times written behind`]: 1,
    'posture report that changes a fact': 10,
    // the service comes from memory since the shared document repository keeps what lists read (was 14)
    'session request, new': 13,
    // the edge session from memory (kept per instance by API session) (was 1)
    'session request, existing': 0,
    'GET /services': 0,
  };

  it('each hot request sends the documented number of statements', async () => {
    const counted = async (status: number, request: () => Promise<{ status: number }>) =>
      (await statements(status, request)).filter(
        (sql) => !sql.startsWith('UPDATE api_sessions SET last_activity_at'),
      );
    // The first report stores the fact; the next reads it into the cache.
    await counted(201, () => w.respond(user, linux('6.8.0')));
    await counted(201, () => w.respond(user, linux('6.8.0')));
    const repeated = async () => {
      const sent: string[] = [];
      for (let i = 0; i < REPEATS; i++)
        sent.push(...(await counted(201, () => w.respond(user, linux('6.8.0')))));
      // What they left to write goes out now (the store's timer would do it within a second).
      await counting.run(sent, () => (w.controller.ctx.store as PgStore).posture.data.flushReportedTimes());
      return sent;
    };
    const got: Record<keyof typeof EXPECTED, string[]> = {
      [`${REPEATS} posture reports that repeat the stored facts, their times written behind`]:
        await repeated(),
      'posture report that changes a fact': await counted(201, () => w.respond(user, linux('6.9.0'))),
      'session request, new': await counted(201, () => w.session(user, serviceId)),
      // The grant read the posture data inside its transaction, which fills no cache: the first request
      // after it reads them once; this is the one after, as every later one.
      'session request, existing': await counted(201, () => w.session(user, serviceId)).then(() =>
        counted(201, () => w.session(user, serviceId)),
      ),
      'GET /services': await counted(200, () => user.api.get(`${CLIENT}/services?limit=500`)),
    };
    // The bulk route's repeated report costs what the single one does: nothing until its time is written.
    expect(await counted(201, () => w.respondBulk(user, [linux('6.9.0')]))).toEqual([]);
    for (const [what, sent] of Object.entries(got) as [keyof typeof EXPECTED, string[]][]) {
      const message = `${what}:\n${sent.join('\n')}`;
      // Whether the repeats' times are written at all depends on the clock (a time moves once a second at
      // most): at most one statement, never more.
      if (what.includes('repeat')) expect(sent.length, message).toBeLessThanOrEqual(EXPECTED[what]);
      else expect(sent.length, message).toBe(EXPECTED[what]);
    }
  });
});
