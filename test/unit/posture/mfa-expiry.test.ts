/**
 * MFA timeouts and wake/unlock grace periods end on a timer set for the exact moment, with a fake clock:
 * one millisecond before it the session stands, at it the session is revoked, without anything polling.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PostureEngine } from '../../../controller/posture/engine/posture-engine.js';
import { wirePostureEvents } from '../../../controller/posture/engine/posture-events.js';
import { requestSession } from '../../../controller/posture/access/session-requests.js';
import { AccessResolver } from '../../../controller/posture/access/access-resolver.js';
import { applyResponses } from '../../../controller/posture/responses/apply-responses.js';
import type { ApiSession, Identity, Service } from '../../../controller/model.js';
import type { PostureCheck } from '../../../controller/posture/types.js';
import { Fixture } from './fixture.js';

const T0 = new Date('2025-03-01T08:00:00.000Z');

describe('MFA expiry on exact timers', () => {
  let f: Fixture;
  let engine: PostureEngine;
  let wiring: { close(): void };
  let identity: Identity;
  let service: Service;
  let apiSession: ApiSession;
  let check: PostureCheck;

  function setUp(mfa: Record<string, unknown>) {
    check = f.check('MFA', mfa, ['mfa']);
    service = f.service();
    f.policy({
      identityRoles: [`@${identity.id}`],
      serviceRoles: [`@${service.id}`],
      postureCheckRoles: ['#mfa'],
    });
    apiSession = f.apiSession(identity);
  }

  const caller = () => ({ session: apiSession, identity });
  const sessionExists = (id: string) => f.store.posture.sessions.get(id) !== undefined;
  const checkPasses = () =>
    engine.evaluation(new AccessResolver(f.store), identity.id, apiSession.id).check(check).isPassing;
  const wake = () => {
    applyResponses(
      f.ctx,
      identity.id,
      apiSession.id,
      [{ typeId: 'ENDPOINT_STATE', id: 'e', woken: true, unlocked: false }],
      f.ctx.clock.now(),
    );
    engine.evaluateIdentity(identity.id);
  };

  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(T0);
    f = new Fixture();
    engine = new PostureEngine(f.ctx);
    wiring = wirePostureEvents(f.ctx, engine);
    identity = f.identity();
  });

  afterEach(() => {
    wiring.close();
    engine.close();
    f.dispose();
    vi.useRealTimers();
  });

  it('keeps the session through 4:59 of wake grace and revokes it at 5:00', () => {
    setUp({ timeoutSeconds: -1, promptOnWake: true });
    f.ctx.events.emit('mfa.passed', apiSession.id, identity.id);
    const session = requestSession(f.ctx, engine, caller(), service.id, 'Dial');
    expect(engine.timers.dueAt(apiSession.id)).toBeUndefined();

    vi.advanceTimersByTime(60_000);
    const wokenAt = Date.now();
    wake();
    expect(engine.timers.dueAt(apiSession.id)?.getTime()).toBe(wokenAt + 300_000);

    vi.advanceTimersByTime(299_000); // 4:59 after the wake
    expect(checkPasses()).toBe(true);
    expect(sessionExists(session.id)).toBe(true);
    vi.advanceTimersByTime(999); // 4:59.999
    expect(sessionExists(session.id)).toBe(true);
    vi.advanceTimersByTime(1); // 5:00: the timer fires at this exact millisecond
    expect(Date.now()).toBe(wokenAt + 300_000);
    expect(sessionExists(session.id)).toBe(false);
    expect(checkPasses()).toBe(false);
    expect(() => requestSession(f.ctx, engine, caller(), service.id, 'Dial')).toThrow(
      /Posture response data is missing or wrong/,
    );
    expect(engine.timers.dueAt(apiSession.id)).toBeUndefined();

    // TOTP again: passes, and a later wake starts a new grace.
    f.ctx.events.emit('mfa.passed', apiSession.id, identity.id);
    expect(checkPasses()).toBe(true);
  });

  it('fires when timeoutSeconds have passed, not a millisecond earlier, and moves lastChangeAt', () => {
    setUp({ timeoutSeconds: 60 });
    f.ctx.events.emit('mfa.passed', apiSession.id, identity.id);
    const session = requestSession(f.ctx, engine, caller(), service.id, 'Dial');
    const before = f.store.posture.changes.lastChangeAt(identity.id);

    vi.advanceTimersByTime(60_000); // exactly the timeout: still valid (OpenZiti's strict comparison)
    expect(sessionExists(session.id)).toBe(true);
    vi.advanceTimersByTime(1);
    expect(sessionExists(session.id)).toBe(false);
    const after = f.store.posture.changes.lastChangeAt(identity.id);
    expect(after?.getTime()).toBe(T0.getTime() + 60_001);
    expect(after?.getTime()).toBeGreaterThan(before?.getTime() ?? 0);
  });

  it('uses one timer for many sessions and re-arms for the next due one', () => {
    setUp({ timeoutSeconds: 30 });
    const other = f.identity();
    f.policy({
      identityRoles: [`@${other.id}`],
      serviceRoles: [`@${service.id}`],
      postureCheckRoles: ['#mfa'],
    });
    const otherSession = f.apiSession(other);
    f.ctx.events.emit('mfa.passed', apiSession.id, identity.id);
    vi.advanceTimersByTime(10_000);
    f.ctx.events.emit('mfa.passed', otherSession.id, other.id);
    const first = requestSession(f.ctx, engine, caller(), service.id, 'Dial');
    const second = requestSession(
      f.ctx,
      engine,
      { session: otherSession, identity: other },
      service.id,
      'Dial',
    );
    expect(vi.getTimerCount()).toBe(1);

    vi.advanceTimersByTime(20_001);
    expect(sessionExists(first.id)).toBe(false);
    expect(sessionExists(second.id)).toBe(true);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(10_000);
    expect(sessionExists(second.id)).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('drops the timer of an API session that ends', () => {
    setUp({ timeoutSeconds: 30 });
    f.ctx.events.emit('mfa.passed', apiSession.id, identity.id);
    expect(engine.timers.size).toBe(1);
    f.store.apiSessions.delete(apiSession.id);
    f.ctx.events.emit('apiSession.deleted', apiSession.id, identity.id);
    expect(engine.timers.size).toBe(0);
    expect(f.store.posture.data.load(identity.id).apiSessions).toEqual({});
  });
});
