/**
 * PostgreSQL's access outbox delivered to the controllers sharing a database (a real server): two
 * PgAccessOutbox instances, each with its own event bus, stand for two controllers. Writes go through
 * PgDatabase and the PostgreSQL posture repository, so the schema's triggers write the rows.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControllerEventBus, type ControllerEvents } from '../../controller/platform/context.js';
import { PgAccessOutbox, type PgAccessOutboxOptions } from '../../controller/events/pg-access-outbox.js';
import { createLogger } from '../../controller/logger.js';
import type { EdgeSession } from '../../controller/store/posture-repository.js';
import { migratePostgres } from '../../controller/store/postgres/migrate.js';
import { PgDatabase } from '../../controller/store/postgres/pg-database.js';
import { PgPostureRepository } from '../../controller/store/postgres/posture-repository.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { addApiSession, endPool } from '../helpers/pg-test-tools.js';

const DELIVERY_TIMEOUT_MS = 5_000;
/** Long enough for a delivery that was going to happen to have happened. */
const QUIET_MS = 400;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server?.stop());

type Heard = { [K in keyof ControllerEvents]: [K, ...ControllerEvents[K]] }[keyof ControllerEvents];

/** A controller, as far as the outbox goes: its pool, its store's posture repository, its bus and outbox. */
interface Controller {
  pool: pg.Pool;
  db: PgDatabase;
  posture: PgPostureRepository;
  outbox: PgAccessOutbox;
  /** what its bus published, in order */
  heard: Heard[];
}

async function startController(url: string, options: PgAccessOutboxOptions = {}): Promise<Controller> {
  const pool = new pg.Pool({ connectionString: url });
  const db = new PgDatabase(pool);
  const events = new ControllerEventBus((fn) => db.afterCommit(fn));
  const heard: Heard[] = [];
  events.on('sessions.added', (ids) => heard.push(['sessions.added', ids]));
  events.on('sessions.removed', (gone) => heard.push(['sessions.removed', gone]));
  events.on('access.changed', (identityId, at) => heard.push(['access.changed', identityId, at]));
  const outbox = new PgAccessOutbox(pool, { events, log: createLogger('silent') }, options);
  await outbox.start();
  return { pool, db, posture: new PgPostureRepository(db), outbox, heard };
}

async function stopController(c: Controller): Promise<void> {
  await c.outbox.close();
  await endPool(c.pool);
}

/** An edge session of API session `api-1`, which each database below has (an edge session needs its own). */
const session = (id: string, apiSessionId = 'api-1'): EdgeSession => ({
  id,
  tokenHash: `hash-${id}`,
  identityId: 'identity-1',
  apiSessionId,
  serviceId: 'service-1',
  type: 'Dial',
  createdAt: new Date('2025-01-01T00:00:00.000Z'),
  updatedAt: new Date('2025-01-01T00:00:00.000Z'),
});

const added = (c: Controller) => c.heard.flatMap((h) => (h[0] === 'sessions.added' ? h[1] : []));
const removed = (c: Controller) => c.heard.flatMap((h) => (h[0] === 'sessions.removed' ? h[1] : []));

async function waitFor(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + DELIVERY_TIMEOUT_MS;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${DELIVERY_TIMEOUT_MS} ms: ${what}`);
    await delay(20);
  }
}

describe('two controllers on one database', () => {
  let url: string;
  let a: Controller;
  let b: Controller;
  beforeAll(async () => {
    url = await server.createDatabase();
    const pool = new pg.Pool({ connectionString: url });
    await migratePostgres(pool);
    await addApiSession(pool, 'api-1', 'identity-1');
    await endPool(pool);
    [a, b] = await Promise.all([startController(url), startController(url)]);
  });
  afterAll(async () => {
    for (const c of [a, b]) if (c) await stopController(c);
  });

  it('is not held back by a long write transaction in another database on the same server', async () => {
    const elsewhere = new pg.Client({ connectionString: await server.createDatabase() });
    await elsewhere.connect();
    try {
      // A transaction with an id (it wrote), left open: it holds the server-wide xmin back while it lasts.
      await elsewhere.query('BEGIN');
      await elsewhere.query('CREATE TABLE held (x int)');
      await a.posture.sessions.create(session('e-other-db'));
      await waitFor(
        'delivered despite the open transaction elsewhere',
        () => added(a).includes('e-other-db') && added(b).includes('e-other-db'),
      );
      // The other tests count what they hear from a clean start.
      a.heard.length = 0;
      b.heard.length = 0;
    } finally {
      await elsewhere.query('ROLLBACK');
      await elsewhere.end();
    }
  });

  it('publishes a session on both after its commit, and never one rolled back', async () => {
    await a.db.transaction(async () => {
      await a.posture.sessions.create(session('e1'));
      await delay(QUIET_MS);
      expect([added(a), added(b)]).toEqual([[], []]);
    });
    await waitFor('e1 added on both', () => added(a).includes('e1') && added(b).includes('e1'));

    await expect(
      a.db.transaction(async () => {
        await a.posture.sessions.create(session('rolled-back'));
        throw new Error('undone');
      }),
    ).rejects.toThrow('undone');
    // Written by the other controller this time.
    await b.db.transaction(() => b.posture.sessions.delete('e1'));
    await waitFor('e1 removed on both', () => removed(a).length > 0 && removed(b).length > 0);
    for (const c of [a, b]) {
      expect(removed(c)).toEqual([{ id: 'e1', identityId: 'identity-1', apiSessionId: 'api-1' }]);
      // Its transaction was older than the removal's: had it committed, it would be out by now.
      expect(added(c)).toEqual(['e1']);
    }
  });

  it('publishes consecutive rows of one kind as one event, in the order written', async () => {
    const before = [a.heard.length, b.heard.length] as const;
    const changedAt = new Date('2025-02-03T04:05:06.789Z');
    await a.db.transaction(async () => {
      for (const id of ['g1', 'g2', 'g3']) await a.posture.sessions.create(session(id));
      await a.posture.changes.markChanged('identity-1', changedAt);
      await a.posture.sessions.deleteMany(['g2']);
    });
    const expected: Heard[] = [
      ['sessions.added', ['g1', 'g2', 'g3']],
      ['access.changed', 'identity-1', changedAt],
      ['sessions.removed', [{ id: 'g2', identityId: 'identity-1', apiSessionId: 'api-1' }]],
    ];
    await waitFor(
      'the three events on both',
      () => a.heard.length >= before[0] + 3 && b.heard.length >= before[1] + 3,
    );
    await delay(QUIET_MS);
    expect(a.heard.slice(before[0])).toEqual(expected);
    expect(b.heard.slice(before[1])).toEqual(expected);
  });

  it('delivers a transaction that wrote first but committed last, before the later one', async () => {
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => (wrote = resolve));
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const early = a.db.transaction(async () => {
      await a.posture.sessions.create(session('early'));
      wrote();
      await finished;
    });
    await written;
    await b.db.transaction(() => b.posture.sessions.create(session('late')));
    // The later one's notification has come and gone; reading by seq alone would now step past `early`.
    await delay(QUIET_MS);
    finish();
    await early;
    for (const c of [a, b]) {
      await waitFor('early and late', () => added(c).includes('early') && added(c).includes('late'));
      const ids = added(c);
      expect(ids.indexOf('early')).toBeLessThan(ids.indexOf('late'));
    }
  });

  it('starts at the current end, yet delivers a transaction open at its start once it commits', async () => {
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => (wrote = resolve));
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const open = a.db.transaction(async () => {
      await a.posture.sessions.create(session('open-at-start'));
      wrote();
      await finished;
    });
    await written;
    // Younger than the open transaction, and committed: a cursor at the start's xmin alone would replay it.
    await a.db.transaction(() => a.posture.sessions.create(session('before-start')));
    const c = await startController(url);
    try {
      finish();
      await open;
      await b.db.transaction(() => b.posture.sessions.create(session('after-start')));
      await waitFor(
        'both on the new controller',
        () => added(c).includes('after-start') && added(c).includes('open-at-start'),
      );
      await c.outbox.catchUp();
      expect(added(c)).not.toContain('before-start');
    } finally {
      await stopController(c);
    }
  });

  it("publishes the removal of an ended API session's edge sessions, and refuses one for an API session that is gone", async () => {
    await addApiSession(a.pool, 'api-ending', 'identity-1');
    await a.db.transaction(async () => {
      for (const id of ['h1', 'h2']) await a.posture.sessions.create(session(id, 'api-ending'));
    });
    await waitFor('h1 and h2 added on both', () =>
      [a, b].every((c) => added(c).includes('h1') && added(c).includes('h2')),
    );
    const before = [removed(a).length, removed(b).length] as const;

    // The API session's end takes its edge sessions with it (the foreign key's cascade): the outbox's trigger
    // writes their session.removed rows, in the ending transaction.
    await b.db.run(`DELETE FROM api_sessions WHERE id = 'api-ending'`);
    await waitFor(
      'h1 and h2 removed on both',
      () => removed(a).length >= before[0] + 2 && removed(b).length >= before[1] + 2,
    );
    const gone = ['h1', 'h2'].map((id) => ({ id, identityId: 'identity-1', apiSessionId: 'api-ending' }));
    const sorted = (list: { id: string }[]) => [...list].sort((x, y) => (x.id < y.id ? -1 : 1));
    expect(sorted(removed(a).slice(before[0]))).toEqual(gone);
    expect(sorted(removed(b).slice(before[1]))).toEqual(gone);
    expect(await a.posture.sessions.get('h1')).toBeUndefined();

    // None for it afterwards: the insert is refused, so nothing is published.
    await expect(a.posture.sessions.create(session('h3', 'api-ending'))).rejects.toThrow(/foreign key/);
    await delay(QUIET_MS);
    for (const c of [a, b]) expect(added(c)).not.toContain('h3');
  });
});

describe('a dropped listening connection', () => {
  let url: string;
  let admin: pg.Pool;
  let a: Controller;
  let b: Controller;
  // No poll worth the name: whatever arrives comes from a notification or the catch-up after reconnecting.
  const options: PgAccessOutboxOptions = { pollMs: 60_000, reconnectMinMs: 1_000 };
  beforeAll(async () => {
    url = await server.createDatabase();
    admin = new pg.Pool({ connectionString: url, max: 1 });
    await migratePostgres(admin);
    await addApiSession(admin, 'api-1', 'identity-1');
    [a, b] = await Promise.all([startController(url, options), startController(url, options)]);
  });
  afterAll(async () => {
    for (const c of [a, b]) if (c) await stopController(c);
    if (admin) await endPool(admin);
  });

  const listeners = async () =>
    (
      await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN postern_outbox'
         ORDER BY pid`,
      )
    ).rows.map((r) => r.pid);

  it('listens again and delivers what was written meanwhile', async () => {
    await a.db.transaction(() => a.posture.sessions.create(session('first')));
    await waitFor('first on both', () => added(a).includes('first') && added(b).includes('first'));

    const before = await listeners();
    expect(before).toHaveLength(2);
    await admin.query(`SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) pid`, [before]);
    await waitFor('the listening backends gone', async () => (await listeners()).length === 0);
    // Nobody listens: this commit's notification reaches no one.
    await a.db.transaction(() => a.posture.sessions.create(session('while-away')));
    expect(await listeners()).toEqual([]);

    for (const c of [a, b]) await waitFor('while-away', () => added(c).includes('while-away'));
    const after = await listeners();
    expect(after).toHaveLength(2);
    expect(after.filter((pid) => before.includes(pid))).toEqual([]);

    await b.db.transaction(() => b.posture.sessions.delete('first'));
    for (const c of [a, b]) await waitFor('first removed', () => removed(c).some((s) => s.id === 'first'));
    expect(added(a)).toEqual(['first', 'while-away']);
    expect(added(b)).toEqual(['first', 'while-away']);
  });

  it('lets go of its connection and publishes nothing more once closed', async () => {
    const c = await startController(url, options);
    expect(await listeners()).toHaveLength(3);
    await stopController(c);
    await waitFor('its backend gone', async () => (await listeners()).length === 2);
    await a.db.transaction(() => a.posture.sessions.create(session('after-close')));
    await waitFor('after-close on a', () => added(a).includes('after-close'));
    expect(c.heard).toEqual([]);
  });
});
