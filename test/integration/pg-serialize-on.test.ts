/**
 * `serializeOn` on PostgreSQL: two stores (as two controller instances) on one database; a transaction holding
 * a key makes another one asking for the same key wait until it ends, and one asking for another key not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgStore } from '../../controller/store/postgres/pg-store.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';

let server: PostgresServer;
const stores: PgStore[] = [];
beforeAll(async () => {
  server = await startPostgres();
  const url = await server.createDatabase();
  for (let i = 0; i < 2; i++) stores.push(await PgStore.open(url));
});
afterAll(async () => {
  for (const store of stores) await store.close();
  await server?.stop();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('serializeOn on PostgreSQL', () => {
  it('makes a second transaction on the same key wait for the first to end, across instances', async () => {
    const [a, b] = stores as [PgStore, PgStore];
    const events: string[] = [];
    const first = a.transaction(async () => {
      await a.serializeOn('key-1');
      events.push('a holds key-1');
      await pause(300);
      events.push('a ends');
    });
    await pause(50);
    const second = b.transaction(async () => {
      await b.serializeOn('key-1');
      events.push('b holds key-1');
    });
    const other = b.transaction(async () => {
      await b.serializeOn('key-2');
      events.push('b holds key-2');
    });
    await Promise.all([first, second, other]);
    expect(events).toEqual(['a holds key-1', 'b holds key-2', 'a ends', 'b holds key-1']);
  });

  it('refuses outside a transaction', async () => {
    await expect(stores[0]!.serializeOn('key-1')).rejects.toThrow(/open transaction/);
  });
});
