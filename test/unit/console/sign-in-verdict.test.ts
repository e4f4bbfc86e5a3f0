/**
 * "Why is this blocked?" for an identity that cannot sign in says so, with its token's date, before any policy
 * or posture check: a device that never enrolled fails no check, it never arrived.
 */
import { describe, expect, it } from 'vitest';
import { cannotSignIn, verdictOf } from '../../../console/src/lib/explain.js';
import type { ServiceAccess } from '../../../console/src/api/types.js';

const now = new Date('2026-03-10T12:00:00Z');
const token = (expiresAt: string) => ({
  id: 'e1',
  token: 't',
  jwt: 'j',
  expiresAt,
  issuedAt: '2026-03-01T00:00:00Z',
});
const refusedByCheck = {
  policies: [{ id: 'p1', name: 'healthy-laptops', type: 'Dial', isPassing: false, postureChecks: [] }],
} as unknown as ServiceAccess;
const grantedWithoutChecks = {
  policies: [{ id: 'p2', name: 'everyone', type: 'Dial', isPassing: true, postureChecks: [] }],
} as unknown as ServiceAccess;

describe('an identity that cannot sign in', () => {
  it('never enrolled: names the day its token expired, not a posture check', () => {
    const identity = {
      name: 'laptop-bob',
      authenticators: {},
      enrollment: { ott: token('2026-03-08T09:00:00Z') },
    };
    const verdict = verdictOf(refusedByCheck, identity, now);
    expect(verdict.granted).toBe(false);
    expect(verdict.words).toMatch(
      /^laptop-bob never enrolled \(token expired on .*2026.*\): create a new enrollment/,
    );
    expect(verdict.words).not.toMatch(/posture|policy/);
  });

  it('not enrolled yet: says until when the token works; a policy without checks still grants on arrival', () => {
    const identity = {
      name: 'laptop-eve',
      authenticators: {},
      enrollment: { ott: token('2026-03-11T09:00:00Z') },
    };
    const verdict = verdictOf(refusedByCheck, identity, now);
    expect(verdict).toMatchObject({ granted: false });
    expect(verdict.words).toMatch(/has not enrolled yet \(its token is valid until .*\)/);
    expect(verdictOf(grantedWithoutChecks, identity, now)).toMatchObject({ granted: true });
  });

  it('no enrollment and no password: says how to give it a way in', () => {
    expect(cannotSignIn({ name: 'kiosk', authenticators: {}, enrollment: {} }, now)).toMatch(
      /never signed in and has no way to: create an enrollment/,
    );
  });

  it('a password, a certificate or a live session is a way in: the policies decide as before', () => {
    const expired = { ott: token('2026-03-08T09:00:00Z') };
    for (const identity of [
      { name: 'a', authenticators: { updb: { id: 'u', username: 'a' } }, enrollment: expired },
      { name: 'b', authenticators: { cert: { id: 'c', fingerprint: 'f' } }, enrollment: expired },
      { name: 'c', authenticators: {}, enrollment: expired, hasApiSession: true },
    ]) {
      expect(cannotSignIn(identity, now)).toBeNull();
      expect(verdictOf(refusedByCheck, identity, now).words).toMatch(/fails a posture check/);
    }
  });
});
