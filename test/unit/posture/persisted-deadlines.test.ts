/**
 * The engine's persisted deadlines write only what changed: an evaluation that leaves an API session's next
 * change moment as it was costs no store call, and a claimed row is always re-written (or deleted) by the
 * evaluation that follows the claim. Due times go to the store relative to the controller's clock.
 */
import { describe, expect, it } from 'vitest';
import type { ControllerContext } from '../../../controller/platform/context.js';
import { POSTURE_EXPIRY, PersistedDeadlines } from '../../../controller/access/engine/persisted-deadlines.js';

const NOW = Date.parse('2025-03-01T08:00:00.000Z');

function setUp() {
  const calls: string[] = [];
  const ctx = {
    clock: { now: () => new Date(NOW) },
    store: {
      instanceId: 'me',
      // outside a transaction: remembered at once
      afterCommit: () => false,
      deadlines: {
        set: (id: string, kind: string, subject: string, dueInMs: number, owner: string) => {
          calls.push(`set ${id} ${kind} ${subject} ${dueInMs} ${owner}`);
          return Promise.resolve();
        },
        delete: (id: string) => {
          calls.push(`delete ${id}`);
          return Promise.resolve();
        },
      },
    },
  } as unknown as ControllerContext;
  return { calls, deadlines: new PersistedDeadlines(ctx) };
}

describe('persisted posture deadlines', () => {
  it('writes a moment once, relative to the clock, and again only when it changes', async () => {
    const { calls, deadlines } = setUp();
    await deadlines.record('s1', new Date(NOW + 2000));
    await deadlines.record('s1', new Date(NOW + 2000));
    await deadlines.record('s1', new Date(NOW + 5000));
    await deadlines.record('s1', null);
    await deadlines.record('s1', null);
    expect(calls).toEqual([
      `set ${POSTURE_EXPIRY}:s1 ${POSTURE_EXPIRY} s1 2000 me`,
      `set ${POSTURE_EXPIRY}:s1 ${POSTURE_EXPIRY} s1 5000 me`,
      `delete ${POSTURE_EXPIRY}:s1`,
    ]);
  });

  it('costs nothing for an API session that never had a moment', async () => {
    const { calls, deadlines } = setUp();
    await deadlines.record('s1', null);
    expect(calls).toEqual([]);
  });

  it('re-writes or deletes a claimed row whatever the evaluation after the claim finds', async () => {
    const { calls, deadlines } = setUp();
    deadlines.claimed('s1');
    await deadlines.record('s1', null);
    deadlines.claimed('s2');
    await deadlines.record('s2', new Date(NOW + 1000));
    expect(calls).toEqual([
      `delete ${POSTURE_EXPIRY}:s1`,
      `set ${POSTURE_EXPIRY}:s2 ${POSTURE_EXPIRY} s2 1000 me`,
    ]);
  });

  it('deletes the row of a forgotten API session and writes its next moment afresh', async () => {
    const { calls, deadlines } = setUp();
    await deadlines.record('s1', new Date(NOW + 2000));
    await deadlines.forget('s1');
    await deadlines.record('s1', new Date(NOW + 2000));
    expect(calls).toEqual([
      `set ${POSTURE_EXPIRY}:s1 ${POSTURE_EXPIRY} s1 2000 me`,
      `delete ${POSTURE_EXPIRY}:s1`,
      `set ${POSTURE_EXPIRY}:s1 ${POSTURE_EXPIRY} s1 2000 me`,
    ]);
  });
});
