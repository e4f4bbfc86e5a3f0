/**
 * Two transactions that lock the same two rows in opposite orders deadlock; PostgreSQL ends one of them with
 * `deadlock detected`. That is no fault of the client (the soak met it as a 500 on posture reports: a report
 * upserting an identity's facts against another instance's written-behind times), so the store runs the loser
 * again once the winner has committed, and both callers get their answer.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PgStore } from '../../controller/store/postgres/pg-store.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { lockWaiter } from '../helpers/pg-test-tools.js';

let server: PostgresServer;
let store: PgStore;
beforeAll(async () => {
  server = await startPostgres();
  store = await PgStore.open(await server.createDatabase());
  await store.db.run(`CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL)`);
  await store.db.run(`INSERT INTO counters VALUES (1, 0), (2, 0)`);
});
afterAll(async () => {
  await store?.close();
  await server?.stop();
});

const bump = (id: number) => store.db.run(`UPDATE counters SET n = n + 1 WHERE id = ?`, [id]);

function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}

it('runs the transaction that lost a deadlock again, so both commit', async () => {
  const firstHoldsOne = signal();
  const secondHoldsTwo = signal();
  let attempts = 0;
  const first = store.transaction(async () => {
    attempts++;
    await bump(1);
    firstHoldsOne.fire();
    await secondHoldsTwo.promise;
    await bump(2);
    return 'first';
  });
  let secondAttempts = 0;
  const second = store.transaction(async () => {
    attempts++;
    secondAttempts++;
    await firstHoldsOne.promise;
    await bump(2);
    secondHoldsTwo.fire();
    // the first now waits for row 2, which this one holds; taking row 1 closes the cycle
    if (secondAttempts === 1) await lockWaiter(store.db);
    await bump(1);
    return 'second';
  });
  await expect(Promise.all([first, second])).resolves.toEqual(['first', 'second']);
  // one of them ran twice: its first attempt was the deadlock's victim, rolled back entirely
  expect(attempts).toBe(3);
  const rows = await store.db.rows<{ id: number; n: number }>(`SELECT id, n FROM counters ORDER BY id`);
  expect(rows).toEqual([
    { id: 1, n: 2 },
    { id: 2, n: 2 },
  ]);
}, 120_000);
