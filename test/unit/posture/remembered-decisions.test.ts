/**
 * A remembered decision is reused only for the very same snapshot, catalogue, identity and service, and only
 * before the moment a check changes by itself; any of them new, or that moment reached, decides again.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AccessResolver } from '../../../controller/access/decisions/access-resolver.js';
import { isGranted } from '../../../controller/access/decisions/remembered-decisions.js';
import { Fixture, postureData } from './fixture.js';

const NOW = new Date('2025-01-01T00:00:00.000Z');
const later = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

describe('remembered access decisions', () => {
  let f: Fixture;
  beforeEach(() => {
    f = new Fixture();
  });
  afterEach(() => f.dispose());

  const snapshot = postureData;

  it('decides again once an MFA timeout passes, for the same snapshot', async () => {
    const identity = await f.identity(['staff']);
    const service = await f.service(['app']);
    await f.check('MFA', { timeoutSeconds: 60 }, ['mfa']);
    await f.policy({ identityRoles: ['#staff'], serviceRoles: ['#app'], postureCheckRoles: ['#mfa'] });
    const data = snapshot({
      apiSessions: {
        s: { apiSessionId: 's', mfaPassedAt: NOW, wokenAt: null, unlockedAt: null, sdkInfo: null },
      },
    });
    const resolver = await AccessResolver.of(f.store);
    const granted = (at: Date) => isGranted(resolver, data, identity, 's', service, 'Dial', at);
    expect(granted(later(1))).toBe(true);
    expect(granted(later(59))).toBe(true);
    expect(granted(later(61)), 'the timeout passed').toBe(false);
    // And back: a decision made later does not answer for an earlier moment (a clock set back).
    expect(granted(later(30))).toBe(true);
  });

  it('decides again for a new snapshot, catalogue or identity', async () => {
    const identity = await f.identity(['staff']);
    const service = await f.service(['app']);
    await f.check('DOMAIN', { domains: ['corp'] }, ['base']);
    await f.policy({ identityRoles: ['#staff'], serviceRoles: ['#app'], postureCheckRoles: ['#base'] });
    const slot = { postureCheckId: 'x', lastUpdatedAt: NOW };
    const inCorp = snapshot({ domain: { ...slot, domain: 'corp' } });
    const resolver = await AccessResolver.of(f.store);
    expect(isGranted(resolver, inCorp, identity, 's', service, 'Dial', NOW)).toBe(true);

    const elsewhere = snapshot({ domain: { ...slot, domain: 'home' } });
    expect(isGranted(resolver, elsewhere, identity, 's', service, 'Dial', NOW), 'new data').toBe(false);

    // A resolver lives for one request (it keeps what it derived per identity id): the next request's.
    const next = await AccessResolver.of(f.store);
    expect(next.basis, 'the same catalogue').toBe(resolver.basis);
    const outsider = { ...identity, roleAttributes: [] };
    expect(isGranted(next, inCorp, outsider, 's', service, 'Dial', NOW), 'new identity').toBe(false);

    await f.check('DOMAIN', { domains: ['other'] }, ['base']);
    const changed = await AccessResolver.of(f.store);
    expect(changed.basis).not.toBe(resolver.basis);
    expect(isGranted(changed, inCorp, identity, 's', service, 'Dial', NOW), 'new catalogue').toBe(false);
    expect(isGranted(resolver, inCorp, identity, 's', service, 'Dial', NOW), 'the old one').toBe(true);
  });
});
