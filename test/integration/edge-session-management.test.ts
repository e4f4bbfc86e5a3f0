/**
 * Edge sessions as an administrator and a database reader see them, on the real controller with its embedded
 * router, on the suite's store (SQLite, or PostgreSQL on the postgres project):
 *
 * - the database holds no session token, only its hash, and the router still carries the session's streams;
 * - the owner's client gets its token back for the existing session, as OpenZiti answers it;
 * - administrators list, read and end every identity's sessions (`/edge/management/v1/sessions`), never seeing
 *   a token; ending one cuts its live tunnel within a second; other users are refused as on every management
 *   route;
 * - a session made under another master key (a restored key, an instance without the shared one) is re-keyed
 *   on its next request and keeps working.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientHttp2Session } from 'node:http2';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, CLIENT, MGMT } from '../helpers/api.js';
import {
  closeServer,
  closedWithin,
  dialSession,
  echoServer,
  openLiveTunnel,
  openStream,
  roundTrip,
  routerSession,
  sha256,
  startWorld,
  stopWorld,
  type World,
} from '../helpers/data-plane-world.js';
import { tempDir } from '../helpers/controller.js';
import { endPool } from '../helpers/pg-test-tools.js';

/** The push must cut within a second; the bound is the requirement, not a benchmark. */
const CUT_WITHIN_MS = 1000;

const tokenSha256 = (token: string) => sha256(Buffer.from(token, 'utf8'));

/** Every row of every table of the world's database, as text: what someone holding a copy could read. */
async function everythingStored(
  world: World,
): Promise<{ text: string; sessions: Record<string, unknown>[] }> {
  const url = world.bundle.controller.ctx.config.database;
  if (url) {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const tables = await pool.query<{ tablename: string }>(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
      );
      let text = '';
      for (const { tablename } of tables.rows)
        text += JSON.stringify((await pool.query(`SELECT * FROM "${tablename}"`)).rows);
      return { text, sessions: (await pool.query('SELECT * FROM edge_sessions')).rows };
    } finally {
      await endPool(pool);
    }
  }
  const db = new Database(join(world.dataDir, 'postern.db'), { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
      name: string;
    }[];
    const text = tables.map((t) => JSON.stringify(db.prepare(`SELECT * FROM "${t.name}"`).all())).join('');
    return { text, sessions: db.prepare('SELECT * FROM edge_sessions').all() as Record<string, unknown>[] };
  } finally {
    db.close();
  }
}

describe('edge sessions: stored as hashes, managed by administrators', () => {
  let world: World;
  let echo: Awaited<ReturnType<typeof echoServer>>;
  let h2: ClientHttp2Session | undefined;

  beforeAll(async () => {
    world = await startWorld();
    echo = await echoServer();
  });
  afterAll(async () => {
    h2?.destroy();
    if (echo) await closeServer(echo.server, echo.sockets);
    if (world) await stopWorld(world);
  });

  const liveTunnel = () =>
    openLiveTunnel(world, {
      tagPrefix: 'esm',
      bytes: 2048,
      echoPort: echo.port,
      router: async (url, fingerprint) => (h2 ??= await routerSession(url, fingerprint)),
    });

  it('the database holds only the SHA-256 of a session token, and the router carries the session', async () => {
    // openLiveTunnel proves a stream through the router with the token.
    const t = await liveTunnel();
    const { text, sessions } = await everythingStored(world);
    const row = sessions.find((s) => s.id === t.session.id);
    expect(row).toMatchObject({ token_hash: tokenSha256(t.session.token) });
    expect(row).not.toHaveProperty('token');
    expect(text).toContain(t.session.id);
    expect(text).not.toContain(t.session.token);
  });

  it("the owner's client gets the same session and token again, and the token works", async () => {
    const t = await liveTunnel();
    const again = await dialSession(t.user, t.serviceId);
    expect([again.id, again.token]).toEqual([t.session.id, t.session.token]);
    const own = await t.user.api.get(`${CLIENT}/sessions/${t.session.id}`);
    expect(own.body.data.token).toBe(t.session.token);
    const opened = await openStream(h2!, again.token, t.serviceId);
    expect(opened.status).toBe(200);
    const data = randomBytes(512);
    expect(await roundTrip(opened.stream, data)).toBe(sha256(data));
    opened.stream.close();
  });

  it('administrators list and read every session, never its token', async () => {
    const t = await liveTunnel();
    const listed = await world.admin.get(
      `${MGMT}/sessions?filter=${encodeURIComponent(`identityId = "${t.user.id}"`)}`,
    );
    expect(listed.status).toBe(200);
    expect(listed.body.meta.pagination).toMatchObject({ totalCount: 1, offset: 0 });
    const [shown] = listed.body.data;
    expect(shown).toMatchObject({
      id: t.session.id,
      type: 'Dial',
      token: '',
      apiSessionId: t.user.apiSessionId,
      apiSession: { id: t.user.apiSessionId, entity: 'api-sessions' },
      serviceId: t.serviceId,
      service: { id: t.serviceId, entity: 'services' },
      identityId: t.user.id,
    });
    expect(shown.edgeRouters.map((r: { fingerprint: string }) => r.fingerprint)).toEqual(
      t.session.edgeRouters.map((r) => r.fingerprint),
    );
    const one = await world.admin.get(`${MGMT}/sessions/${t.session.id}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual(shown);
    expect(JSON.stringify([listed.body, one.body])).not.toContain(t.session.token);

    // The usual list grammar: sort, paging, and a filter naming a field it does not know is a 400 naming it.
    const page = await world.admin.get(
      `${MGMT}/sessions?limit=1&sort=${encodeURIComponent('createdAt desc')}`,
    );
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.meta.pagination.totalCount).toBeGreaterThanOrEqual(2);
    const bad = await world.admin.get(`${MGMT}/sessions?filter=${encodeURIComponent('token = "x"')}`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.cause.field).toBe('filter');
    expect((await world.admin.get(`${MGMT}/sessions/no-such-session`)).status).toBe(404);
  });

  it('ending a session cuts its live tunnel within a second; the token is refused after', async () => {
    const t = await liveTunnel();
    const cut = closedWithin(t.stream);
    expect((await world.admin.delete(`${MGMT}/sessions/${t.session.id}`)).status).toBe(200);
    expect(await cut).toBeLessThan(CUT_WITHIN_MS);
    expect((await world.admin.get(`${MGMT}/sessions/${t.session.id}`)).status).toBe(404);
    expect((await world.admin.delete(`${MGMT}/sessions/${t.session.id}`)).status).toBe(404);
    expect((await t.user.api.get(`${CLIENT}/sessions/${t.session.id}`)).status).toBe(404);
    expect((await openStream(h2!, t.session.token, t.serviceId)).error).toBe('INVALID_SESSION');

    // Posture still grants the service: the client asks again and gets a new session that works.
    const fresh = await dialSession(t.user, t.serviceId);
    expect(fresh.id).not.toBe(t.session.id);
    expect((await openStream(h2!, fresh.token, t.serviceId)).status).toBe(200);
  });

  it('a user who is not an administrator can neither see nor end sessions, their own included', async () => {
    const t = await liveTunnel();
    for (const answer of [
      await t.user.api.get(`${MGMT}/sessions`),
      await t.user.api.get(`${MGMT}/sessions/${t.session.id}`),
      await t.user.api.delete(`${MGMT}/sessions/${t.session.id}`),
      await world.admin.as(undefined).get(`${MGMT}/sessions`),
      await world.admin.as(undefined).delete(`${MGMT}/sessions/${t.session.id}`),
    ]) {
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe('UNAUTHORIZED');
    }
    expect((await world.admin.get(`${MGMT}/sessions/${t.session.id}`)).status).toBe(200);
    expect(t.stream.closed).toBe(false);
  });
});

describe('a session made under another master key', () => {
  it('is re-keyed on its next request, and the new token works at the router', async () => {
    const dataDir = tempDir('postern-rekey-');
    let world = await startWorld({ config: { dataDir } });
    const echo = await echoServer();
    let h2: ClientHttp2Session | undefined;
    try {
      const t = await openLiveTunnel(world, {
        tagPrefix: 'rekey',
        bytes: 256,
        echoPort: echo.port,
        router: async (url, fingerprint) => (h2 = await routerSession(url, fingerprint)),
      });
      h2?.destroy();
      await stopWorld(world, true);
      // Another key: as if the key file were restored from elsewhere, or another instance had made it.
      writeFileSync(join(dataDir, 'master.key'), randomBytes(32), { mode: 0o600 });
      world = await startWorld({ config: { dataDir } });
      // The same API session, at the restarted controller's address.
      const user = { ...t.user, api: new Api(world.url, t.user.api.token) };

      const again = await dialSession(user, t.serviceId);
      expect(again.id).toBe(t.session.id);
      expect(again.token).not.toBe(t.session.token);
      const { sessions } = await everythingStored(world);
      expect(sessions.find((s) => s.id === again.id)).toMatchObject({ token_hash: tokenSha256(again.token) });
      h2 = await routerSession(again.edgeRouters[0]!.urls.tls!, again.edgeRouters[0]!.fingerprint);
      const opened = await openStream(h2, again.token, t.serviceId);
      expect(opened.status).toBe(200);
      const data = randomBytes(256);
      expect(await roundTrip(opened.stream, data)).toBe(sha256(data));
      // And the next request finds it as it is: the same token, no further change.
      expect((await dialSession(user, t.serviceId)).token).toBe(again.token);
    } finally {
      h2?.destroy();
      await closeServer(echo.server, echo.sockets);
      await stopWorld(world);
    }
  });
});
