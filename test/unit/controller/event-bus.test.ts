/**
 * Events are published after the transaction that caused them commits, never inside it, and never for one that
 * rolled back; the transaction resolves only once its (possibly asynchronous) listeners have settled.
 */
import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ControllerEventBus } from '../../../controller/platform/context.js';
import { SqliteStore } from '../../../controller/store/sqlite-store.js';
import { tempDir } from '../../helpers/controller.js';

const opened: { store: SqliteStore; dir: string }[] = [];
afterEach(async () => {
  for (const { store, dir } of opened.splice(0)) {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

function setup() {
  const dir = tempDir('postern-bus-');
  const store = SqliteStore.open(dir);
  opened.push({ store, dir });
  const bus = new ControllerEventBus((fn) => store.afterCommit(fn));
  const seen: string[] = [];
  // Inside a transaction means: the store says so, or SQLite has not committed yet.
  const inside = () => store.inTransaction() || store.db.inTransaction;
  bus.on('identity.changed', (id) => seen.push(`changed ${id} in transaction: ${inside()}`));
  bus.on('policy.changed', () => seen.push('policy'));
  return { store, bus, seen };
}

/** A listener that finishes only after a real delay, so whoever waits for it must really wait. */
function slowListener(bus: ControllerEventBus, seen: string[]): void {
  bus.on('identity.deleted', async (id) => {
    seen.push(`deleting ${id}`);
    await sleep(20);
    seen.push(`deleted ${id}`);
  });
}

describe('ControllerEventBus', () => {
  it('publishes at once outside a transaction', () => {
    const { bus, seen } = setup();
    bus.emit('identity.changed', 'a');
    expect(seen).toEqual(['changed a in transaction: false']);
  });

  it('holds what is emitted inside a transaction until it has committed, in order', async () => {
    const { store, bus, seen } = setup();
    await store.transaction(async () => {
      bus.emit('identity.changed', 'a');
      bus.emit('policy.changed');
      await sleep(5);
      bus.emit('identity.changed', 'b');
      await sleep(5);
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual(['changed a in transaction: false', 'policy', 'changed b in transaction: false']);
  });

  it('resolves the transaction only after its asynchronous listeners have settled', async () => {
    const { store, bus, seen } = setup();
    slowListener(bus, seen);
    await store.transaction(async () => {
      bus.emit('identity.deleted', 'a');
    });
    expect(seen).toEqual(['deleting a', 'deleted a']);
  });

  it('never publishes what a rolled-back transaction emitted', async () => {
    const { store, bus, seen } = setup();
    await expect(
      store.transaction(async () => {
        bus.emit('identity.changed', 'a');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await bus.settled();
    await sleep(20);
    expect(seen).toEqual([]);
  });

  it('never publishes what a rolled-back nested transaction emitted, but does what its outer one did', async () => {
    const { store, bus, seen } = setup();
    await store.transaction(async () => {
      bus.emit('identity.changed', 'outer');
      await expect(
        store.transaction(async () => {
          bus.emit('identity.changed', 'inner');
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
    });
    await sleep(20);
    expect(seen).toEqual(['changed outer in transaction: false']);
  });

  it('holds events from a group commit until the whole group has committed', async () => {
    const { store, bus, seen } = setup();
    await Promise.all([
      store.batch(async () => {
        bus.emit('identity.changed', 'x');
        await sleep(5);
        expect(seen).toEqual([]);
      }),
      store.batch(async () => {
        bus.emit('identity.changed', 'y');
        await sleep(5);
        expect(seen).toEqual([]);
      }),
    ]);
    expect(seen).toEqual(['changed x in transaction: false', 'changed y in transaction: false']);
  });

  it('publish calls the listeners at once and resolves once the asynchronous ones have settled', async () => {
    const { bus, seen } = setup();
    slowListener(bus, seen);
    const published = bus.publish('identity.deleted', 'a');
    expect(seen).toEqual(['deleting a']);
    await published;
    expect(seen).toEqual(['deleting a', 'deleted a']);
  });

  it('settled waits for the listeners an emit outside a transaction started', async () => {
    const { bus, seen } = setup();
    slowListener(bus, seen);
    bus.emit('identity.deleted', 'a');
    bus.emit('identity.deleted', 'b');
    expect(seen).toEqual(['deleting a', 'deleting b']);
    await bus.settled();
    expect(seen.slice(2).sort()).toEqual(['deleted a', 'deleted b']);
  });
});
