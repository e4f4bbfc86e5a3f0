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

  /**
   * The documented numbers (docs/PERFORMANCE.md, "Round trips per request"). Each request is authenticated
   * twice (before its body is read and again before its handler runs; a GET has no second one), three
   * statements each: the API session by its token's hash, the identity, its auth policy. Not counted: moving
   * the API session's last activity, which happens at most once per 5 s whatever the request.
   */
  const EXPECTED = {
    'posture report that repeats the stored facts': 8,
    'posture report that changes a fact': 16,
    'session request, new': 21,
    'session request, existing': 14,
    'GET /services': 4,
  };

  it('each hot request sends the documented number of statements', async () => {
    const counted = async (status: number, request: () => Promise<{ status: number }>) =>
      (await statements(status, request)).filter(
        (sql) => !sql.startsWith('UPDATE api_sessions SET last_activity_at'),
      );
    await counted(201, () => w.respond(user, linux('6.8.0')));
    const got: Record<keyof typeof EXPECTED, string[]> = {
      'posture report that repeats the stored facts': await counted(201, () =>
        w.respond(user, linux('6.8.0')),
      ),
      'posture report that changes a fact': await counted(201, () => w.respond(user, linux('6.9.0'))),
      'session request, new': await counted(201, () => w.session(user, serviceId)),
      'session request, existing': await counted(201, () => w.session(user, serviceId)),
      'GET /services': await counted(200, () => user.api.get(`${CLIENT}/services?limit=500`)),
    };
    // The bulk route's repeated report costs what the single one does.
    expect(await counted(201, () => w.respondBulk(user, [linux('6.9.0')]))).toEqual(
      got['posture report that repeats the stored facts'],
    );
    for (const [what, sent] of Object.entries(got))
      expect(sent.length, `${what}:\n${sent.join('\n')}`).toBe(EXPECTED[what as keyof typeof EXPECTED]);
  });
});
