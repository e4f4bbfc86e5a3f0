/**
 * MFA timeouts and wake/unlock grace periods end on a timer set for the exact moment, with a fake clock:
 * one millisecond before it the session stands, at it the session is revoked, without anything polling.
 * The re-evaluation a timer starts is asynchronous (it reads and writes the store): the clock is advanced
 * with `advanceTimersByTimeAsync`, which lets each fired timer's promises settle before going on.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PostureEngine } from '../../../controller/access/engine/posture-engine.js';
import { wirePostureEvents } from '../../../controller/access/engine/posture-events.js';
import { requestSession } from '../../../controller/access/sessions/session-requests.js';
import { AccessResolver } from '../../../controller/access/decisions/access-resolver.js';
import { applyResponses } from '../../../controller/access/reports/apply-responses.js';
import type { ApiSession, Identity, Service } from '../../../controller/model.js';
import type { PostureCheck } from '../../../controller/posture-model.js';
import { Fixture } from './fixture.js';

const T0 = new Date('2025-03-01T08:00:00.000Z');

describe('MFA expiry on exact timers', () => {
  let f: Fixture;
  let engine: PostureEngine;
  let wiring: { started: Promise<void>; close(): void };
  let identity: Identity;
  let service: Service;
  let apiSession: ApiSession;
  let check: PostureCheck;

  async function setUp(mfa: Record<string, unknown>) {
    check = await f.check('MFA', mfa, ['mfa']);
    service = await f.service();
    await f.policy({
      identityRoles: [`@${identity.id}`],
      serviceRoles: [`@${service.id}`],
      postureCheckRoles: ['#mfa'],
    });
    apiSession = await f.apiSession(identity);
  }

  const caller = () => ({ session: apiSession, identity });
  const sessionExists = async (id: string) => (await f.store.posture.sessions.get(id)) !== undefined;
  const checkPasses = async () =>
    (await engine.evaluation(await AccessResolver.of(f.store), identity, apiSession.id)).check(check)
      .isPassing;
  /** What a TOTP pass publishes; resolves once the engine has stored and evaluated it. */
  const passMfa = (session: ApiSession, of: Identity) =>
    f.ctx.events.publish('mfa.passed', session.id, of.id);
  const wake = async () => {
    // In one transaction, as the posture-response route writes a request's items.
    await f.store.transaction(() =>
      applyResponses(
        f.ctx,
        identity.id,
        apiSession.id,
        [{ typeId: 'ENDPOINT_STATE', id: 'e', woken: true, unlocked: false }],
        f.ctx.clock.now(),
      ),
    );
    await engine.evaluateIdentity(identity.id);
  };
  const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

  beforeEach(async () => {
    vi.useFakeTimers();
    vi.setSystemTime(T0);
    f = new Fixture();
    engine = new PostureEngine(f.ctx);
    wiring = wirePostureEvents(f.ctx, engine);
    await wiring.started;
    identity = await f.identity();
  });

  afterEach(async () => {
    wiring.close();
    engine.close();
    await f.dispose();
    vi.useRealTimers();
  });

  it('keeps the session through 4:59 of wake grace and revokes it at 5:00', async () => {
    await setUp({ timeoutSeconds: -1, promptOnWake: true });
    await passMfa(apiSession, identity);
    const session = await requestSession(f.ctx, engine, caller(), service.id, 'Dial');
    expect(engine.timers.dueAt(apiSession.id)).toBeUndefined();

    await advance(60_000);
    const wokenAt = Date.now();
    await wake();
    expect(engine.timers.dueAt(apiSession.id)?.getTime()).toBe(wokenAt + 300_000);

    await advance(299_000); // 4:59 after the wake
    expect(await checkPasses()).toBe(true);
    expect(await sessionExists(session.id)).toBe(true);
    await advance(999); // 4:59.999
    expect(await sessionExists(session.id)).toBe(true);
    await advance(1); // 5:00: the timer fires at this exact millisecond
    expect(Date.now()).toBe(wokenAt + 300_000);
    expect(await sessionExists(session.id)).toBe(false);
    expect(await checkPasses()).toBe(false);
    await expect(requestSession(f.ctx, engine, caller(), service.id, 'Dial')).rejects.toThrow(
      /Posture response data is missing or wrong/,
    );
    expect(engine.timers.dueAt(apiSession.id)).toBeUndefined();

    // TOTP again: passes, and a later wake starts a new grace.
    await passMfa(apiSession, identity);
    expect(await checkPasses()).toBe(true);
  });

  it('fires when timeoutSeconds have passed, not a millisecond earlier, and moves lastChangeAt', async () => {
    await setUp({ timeoutSeconds: 60 });
    await passMfa(apiSession, identity);
    const session = await requestSession(f.ctx, engine, caller(), service.id, 'Dial');
    const before = await f.store.posture.changes.lastChangeAt(identity.id);

    await advance(60_000); // exactly the timeout: still valid (OpenZiti's strict comparison)
    expect(await sessionExists(session.id)).toBe(true);
    await advance(1);
    expect(await sessionExists(session.id)).toBe(false);
    const after = await f.store.posture.changes.lastChangeAt(identity.id);
    expect(after?.getTime()).toBe(T0.getTime() + 60_001);
    expect(after?.getTime()).toBeGreaterThan(before?.getTime() ?? 0);
  });

  it('uses one timer for many sessions and re-arms for the next due one', async () => {
    await setUp({ timeoutSeconds: 30 });
    const other = await f.identity();
    await f.policy({
      identityRoles: [`@${other.id}`],
      serviceRoles: [`@${service.id}`],
      postureCheckRoles: ['#mfa'],
    });
    const otherSession = await f.apiSession(other);
    await passMfa(apiSession, identity);
    await advance(10_000);
    await passMfa(otherSession, other);
    const first = await requestSession(f.ctx, engine, caller(), service.id, 'Dial');
    const second = await requestSession(
      f.ctx,
      engine,
      { session: otherSession, identity: other },
      service.id,
      'Dial',
    );
    expect(vi.getTimerCount()).toBe(1);

    await advance(20_001);
    expect(await sessionExists(first.id)).toBe(false);
    expect(await sessionExists(second.id)).toBe(true);
    expect(vi.getTimerCount()).toBe(1);
    await advance(10_000);
    expect(await sessionExists(second.id)).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('drops the timer of an API session that ends', async () => {
    await setUp({ timeoutSeconds: 30 });
    await passMfa(apiSession, identity);
    expect(engine.timers.size).toBe(1);
    // As sign-out does it: the delete and its announcement in one transaction, answered after the listeners.
    await f.store.transaction(async () => {
      await f.store.apiSessions.delete(apiSession.id);
      f.ctx.events.emit('apiSession.deleted', apiSession.id, identity.id);
    });
    expect(engine.timers.size).toBe(0);
    expect((await f.store.posture.data.load(identity.id)).apiSessions).toEqual({});
  });
});
