/**
 * The contract of the event delivery queue (store/repositories/delivery-queries.ts) on both stores: every
 * scenario runs against SQLite (through the store's asynchronous face) and PostgreSQL (a real server), with
 * the same expected answers. Claims are raced the way two controllers sharing one database race them:
 * PostgreSQL's from two connection pools, SQLite's through its one store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryRepository } from '../../controller/store/delivery-repository.js';
import type { Delivery, NewDelivery } from '../../controller/event-delivery-model.js';
import { DeliveryQueries } from '../../controller/store/repositories/delivery-queries.js';
import { POSTGRES } from '../../controller/store/sql/dialect.js';
import { postgresFace } from '../../controller/store/sql/faces.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { lockWaiter } from '../helpers/pg-test-tools.js';
import { sqliteContractStore, twoPostgresViews } from '../helpers/contract-stores.js';

const MINUTE = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server?.stop());

/** One store's queue, as one controller sees it, and what the scenarios need around it. */
interface Backend {
  deliveries: DeliveryRepository;
  /** the same database as a second controller sees it (SQLite: the same store, as it has one writer) */
  rival: DeliveryRepository;
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Resolves once the rival's call, made while a transaction of ours is open, has either answered (PostgreSQL:
   * SKIP LOCKED passes over our rows without waiting) or queued behind it (SQLite's one writer); rejects if a
   * PostgreSQL rival waits for our row lock instead.
   */
  rivalDoneOrQueued(call: Promise<unknown>): Promise<void>;
  close(): Promise<void>;
}

async function openSqlite(): Promise<Backend> {
  const { store, close } = sqliteContractStore('postern-delivery-contract-');
  return {
    deliveries: store.deliveries,
    rival: store.deliveries,
    transaction: (fn) => store.transaction(fn),
    // A call from outside the transaction queues on the store's write lock as soon as it is made.
    rivalDoneOrQueued: () => Promise.resolve(),
    close,
  };
}

async function openPostgres(): Promise<Backend> {
  const { db, rivalDb, close } = await twoPostgresViews(server);
  return {
    deliveries: postgresFace(new DeliveryQueries(POSTGRES), db),
    rival: postgresFace(new DeliveryQueries(POSTGRES), rivalDb),
    transaction: (fn) => db.transaction(fn),
    rivalDoneOrQueued: async (call) => {
      const waited = lockWaiter(db).then(
        () => 'waited',
        () => 'never',
      );
      const first = await Promise.race([call.then(() => 'answered'), waited]);
      if (first === 'waited')
        throw new Error('the rival claim waited for the held row instead of passing it over');
    },
    close,
  };
}

let next = 0;
/** A new delivery for `target`; ids are unique across the file, as the table's key wants. */
const delivery = (target: string, fields: Partial<NewDelivery> = {}): NewDelivery => {
  const n = ++next;
  return {
    id: `d-${n}`,
    target,
    eventId: `event-${n}`,
    eventType: 'entityChange',
    body: JSON.stringify({ n }),
    createdAt: new Date(Date.UTC(2025, 0, 1, 0, 0, n % 60)),
    ...fields,
  };
};

const ids = (items: readonly { id: string }[]) => items.map((i) => i.id);

describe.each([
  ['sqlite', openSqlite],
  ['postgres', openPostgres],
])('%s', (_name, open) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await open();
  });
  afterAll(() => backend?.close());

  /** an empty queue for each scenario */
  const clear = async () => {
    for (const target of ['t1', 't2', 't3', 't4']) await backend.deliveries.deleteTarget(target);
  };

  it("claims only each target's oldest pending row, earliest first, and leases it", async () => {
    await clear();
    const { deliveries, rival } = backend;
    const [a1, a2, b1, c1] = [delivery('t1'), delivery('t1'), delivery('t2'), delivery('t3')];
    await deliveries.enqueue([a1, a2, b1]);
    await deliveries.enqueue([c1]);
    const claimed = await deliveries.claim('A', MINUTE, 10, ['t3']);
    expect(ids(claimed)).toEqual([a1.id, b1.id]);
    expect(claimed[0]).toMatchObject({
      target: 't1',
      eventId: a1.eventId,
      eventType: 'entityChange',
      body: a1.body,
      state: 'pending',
      attempts: 0,
      lastError: null,
      createdAt: a1.createdAt,
      deliveredAt: null,
    });
    expect(claimed[0]!.seq).toBeLessThan(claimed[1]!.seq);
    // leased: nobody else gets them; the next row of t1 waits for its head
    expect(ids(await rival.claim('B', MINUTE, 10, []))).toEqual([c1.id]);
    expect(await rival.claim('B', MINUTE, 10, [])).toEqual([]);
    // only the lease holder records the outcome
    expect(await rival.delivered(a1.id, 'B')).toBe(false);
    expect(await deliveries.delivered(a1.id, 'A')).toBe(true);
    expect(await deliveries.delivered(a1.id, 'A')).toBe(false);
    expect(ids(await rival.claim('B', MINUTE, 10, []))).toEqual([a2.id]);
    const done = await deliveries.get(a1.id);
    expect(done).toMatchObject({ state: 'delivered', attempts: 1, lastError: null });
    expect(done!.deliveredAt).toBeInstanceOf(Date);
    expect(Math.abs(done!.deliveredAt!.getTime() - Date.now())).toBeLessThan(MINUTE);
    expect(await deliveries.countPending('t1')).toBe(1);
    expect(await deliveries.countPending('t2')).toBe(1);
    expect(await deliveries.countPending('t4')).toBe(0);
  });

  it('a failure counts an attempt and waits for its retry; a dead one lets the next go; release counts none', async () => {
    await clear();
    const { deliveries } = backend;
    const [a1, a2, b1, b2] = [delivery('t1'), delivery('t1'), delivery('t2'), delivery('t2')];
    await deliveries.enqueue([a1, a2, b1, b2]);
    expect(ids(await deliveries.claim('A', MINUTE, 10, []))).toEqual([a1.id, b1.id]);
    expect(await deliveries.failed(a1.id, 'A', 'connection refused', MINUTE, false)).toBe(true);
    // the lease went with the outcome: a second one is refused
    expect(await deliveries.failed(a1.id, 'A', 'again', MINUTE, false)).toBe(false);
    await deliveries.release(b1.id, 'A', 0);
    // a1 waits for its retry and holds t1 back; b1 was given back, due at once
    expect(ids(await deliveries.claim('A', MINUTE, 10, []))).toEqual([b1.id]);
    expect(await deliveries.get(a1.id)).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastError: 'connection refused',
    });
    expect((await deliveries.get(a1.id))!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + MINUTE / 2);
    expect(await deliveries.get(b1.id)).toMatchObject({ attempts: 0 });
    // a failure with no wait is due again at once; a dead one lets its target's next row go
    expect(await deliveries.failed(b1.id, 'A', 'refused', 0, false)).toBe(true);
    expect(ids(await deliveries.claim('A', MINUTE, 10, []))).toEqual([b1.id]);
    expect(await deliveries.failed(b1.id, 'A', 'refused for good', 0, true)).toBe(true);
    expect(await deliveries.get(b1.id)).toMatchObject({
      state: 'dead',
      attempts: 2,
      lastError: 'refused for good',
    });
    expect(ids(await deliveries.claim('A', MINUTE, 10, []))).toEqual([b2.id]);
    expect(await deliveries.countPending('t1')).toBe(2);
    expect(await deliveries.countPending('t2')).toBe(1);
    expect(a2.id).not.toBe(a1.id);
  });

  it('a lease that ends lets another claimer take the row; the old holder can no longer record it', async () => {
    await clear();
    const { deliveries, rival } = backend;
    const a1 = delivery('t1');
    await deliveries.enqueue([a1]);
    expect(ids(await deliveries.claim('A', 200, 10, []))).toEqual([a1.id]);
    expect(await rival.claim('B', MINUTE, 10, [])).toEqual([]);
    await sleep(400);
    // A stopped: its lease ended
    expect(ids(await rival.claim('B', MINUTE, 10, []))).toEqual([a1.id]);
    expect(await deliveries.delivered(a1.id, 'A')).toBe(false);
    expect(await rival.delivered(a1.id, 'B')).toBe(true);
  });

  it('redelivers a dead or delivered row as a new one at the end of its target, and lists, counts, prunes', async () => {
    await clear();
    const { deliveries } = backend;
    const [a1, a2, b1] = [delivery('t1'), delivery('t1'), delivery('t2')];
    await deliveries.enqueue([a1, a2, b1]);
    expect(ids(await deliveries.claim('A', MINUTE, 10, []))).toEqual([a1.id, b1.id]);
    await deliveries.failed(a1.id, 'A', 'gone', 0, true);
    await deliveries.delivered(b1.id, 'A');
    // a pending row is not redelivered
    expect(await deliveries.redeliver(a2.id)).toBeUndefined();
    expect(await deliveries.redeliver('no-such-delivery')).toBeUndefined();
    const fresh = await deliveries.redeliver(a1.id);
    expect(fresh).toMatchObject({
      target: 't1',
      eventId: a1.eventId,
      body: a1.body,
      state: 'pending',
      attempts: 0,
      lastError: null,
      createdAt: a1.createdAt,
      deliveredAt: null,
    });
    expect(fresh!.id.startsWith(`${a1.id}~`)).toBe(true);
    expect(await deliveries.get(fresh!.id)).toEqual(fresh);
    expect(await deliveries.get(a1.id)).toBeUndefined();
    expect(await deliveries.redeliver(a1.id)).toBeUndefined();

    // newest first; filters by target and state; the total is the whole list's
    const all = await deliveries.list({ limit: 2, offset: 0 });
    expect({ ids: ids(all.items), total: all.totalCount }).toEqual({ ids: [fresh!.id, b1.id], total: 3 });
    const rest = await deliveries.list({ limit: 2, offset: 2 });
    expect({ ids: ids(rest.items), total: rest.totalCount }).toEqual({ ids: [a2.id], total: 3 });
    const pendingOfT1 = await deliveries.list({ target: 't1', state: 'pending', limit: 10, offset: 0 });
    expect({ ids: ids(pendingOfT1.items), total: pendingOfT1.totalCount }).toEqual({
      ids: [fresh!.id, a2.id],
      total: 2,
    });
    const past = await deliveries.list({ state: 'dead', limit: 10, offset: 5 });
    expect(past).toEqual({ items: [], totalCount: 0 });
    const beyond = await deliveries.list({ limit: 10, offset: 10 });
    expect(beyond).toEqual({ items: [], totalCount: 3 });

    // the redelivered row comes after a2 in t1's order
    expect(ids(await deliveries.claim('A', MINUTE, 10, []))).toEqual([a2.id]);
    await deliveries.delivered(a2.id, 'A');
    expect(ids(await deliveries.claim('A', MINUTE, 10, []))).toEqual([fresh!.id]);

    // delivered rows older than the age go; a younger age keeps them
    expect(await deliveries.pruneDelivered(MINUTE)).toBe(0);
    await sleep(50);
    expect(await deliveries.pruneDelivered(10)).toBe(2);
    expect(await deliveries.get(b1.id)).toBeUndefined();
    expect(await deliveries.countPending('t1')).toBe(1);
    await deliveries.deleteTarget('t1');
    expect(await deliveries.list({ limit: 10, offset: 0 })).toEqual({ items: [], totalCount: 0 });
  });

  it('a claim held open by one controller is passed over by the other, which takes the other targets', async () => {
    await clear();
    const { deliveries, rival } = backend;
    const [a1, b1, c1] = [delivery('t1'), delivery('t2'), delivery('t3')];
    await deliveries.enqueue([a1, b1, c1]);
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const ours = backend.transaction(async () => {
      const claimed = await deliveries.claim('A', MINUTE, 1, []);
      entered();
      await held;
      return claimed;
    });
    await inside;
    const theirs = rival.claim('B', MINUTE, 10, []);
    try {
      await backend.rivalDoneOrQueued(theirs);
    } finally {
      release();
    }
    expect(ids(await ours)).toEqual([a1.id]);
    expect(ids(await theirs)).toEqual([b1.id, c1.id]);
  });

  it('two controllers claiming at once: each delivery is claimed once, each target in order', async () => {
    await clear();
    const targets = ['t1', 't2', 't3', 't4'];
    const queued: NewDelivery[] = [];
    for (let round = 0; round < 10; round++) for (const t of targets) queued.push(delivery(t));
    await backend.deliveries.enqueue(queued);
    const claims: Delivery[] = [];
    const drain = async (repo: DeliveryRepository, owner: string) => {
      for (const deadline = Date.now() + 30_000; claims.length < queued.length && Date.now() < deadline;) {
        const claimed = await repo.claim(owner, MINUTE, 3, []);
        claims.push(...claimed);
        for (const d of claimed) expect(await repo.delivered(d.id, owner)).toBe(true);
        if (claimed.length === 0) await sleep(5);
      }
    };
    await Promise.all([drain(backend.deliveries, 'A'), drain(backend.rival, 'B')]);
    expect(ids(claims).sort()).toEqual(ids(queued).sort());
    for (const t of targets)
      expect(ids(claims.filter((d) => d.target === t))).toEqual(ids(queued.filter((d) => d.target === t)));
    expect((await backend.deliveries.list({ state: 'delivered', limit: 1, offset: 0 })).totalCount).toBe(
      queued.length,
    );
  });
});
