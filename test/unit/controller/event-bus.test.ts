/** Events are published after the transaction that caused them commits, never inside it. */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ControllerEventBus } from '../../../controller/context.js';
import { SqliteStore } from '../../../controller/store/sqlite-store.js';
import { tempDir } from '../../helpers/controller.js';

const opened: { store: SqliteStore; dir: string }[] = [];
afterEach(() => {
  for (const { store, dir } of opened.splice(0)) {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

function setup() {
  const dir = tempDir('postern-bus-');
  const store = SqliteStore.open(dir);
  opened.push({ store, dir });
  const bus = new ControllerEventBus(() => store.inTransaction());
  const seen: string[] = [];
  bus.on('identity.changed', (id) => seen.push(`changed ${id} in transaction: ${store.inTransaction()}`));
  bus.on('policy.changed', () => seen.push('policy'));
  return { store, bus, seen };
}

describe('ControllerEventBus', () => {
  it('publishes at once outside a transaction', () => {
    const { bus, seen } = setup();
    bus.emit('identity.changed', 'a');
    expect(seen).toEqual(['changed a in transaction: false']);
  });

  it('holds what is emitted inside a transaction until it has committed, in order', async () => {
    const { store, bus, seen } = setup();
    store.transaction(() => {
      bus.emit('identity.changed', 'a');
      bus.emit('policy.changed');
      bus.emit('identity.changed', 'b');
      expect(seen).toEqual([]);
    });
    await Promise.resolve();
    expect(seen).toEqual(['changed a in transaction: false', 'policy', 'changed b in transaction: false']);
  });

  it('holds events from a group commit until the whole group has committed', async () => {
    const { store, bus, seen } = setup();
    await Promise.all([
      store.batch(() => bus.emit('identity.changed', 'x')),
      store.batch(() => bus.emit('identity.changed', 'y')),
    ]);
    expect(seen).toEqual(['changed x in transaction: false', 'changed y in transaction: false']);
  });
});
