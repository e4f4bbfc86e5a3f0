/**
 * Role selection (`#attr`, `@id`, `#all`, AllOf/AnyOf) for policies, services and checks, and that resolving
 * one identity reads through the role indexes instead of scanning every policy or identity.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AccessResolver } from '../../../controller/posture/access/access-resolver.js';
import { roleSelects } from '../../../controller/posture/access/role-match.js';
import { Fixture } from './fixture.js';

describe('roleSelects', () => {
  it('follows #all, @id and the semantic for attributes', () => {
    expect(roleSelects('AllOf', ['#all'], 'x', [])).toBe(true);
    expect(roleSelects('AllOf', ['@x'], 'x', [])).toBe(true);
    expect(roleSelects('AllOf', ['@y'], 'x', ['a'])).toBe(false);
    expect(roleSelects('AllOf', ['#a', '#b'], 'x', ['a'])).toBe(false);
    expect(roleSelects('AllOf', ['#a', '#b'], 'x', ['b', 'a', 'c'])).toBe(true);
    expect(roleSelects('AnyOf', ['#a', '#b'], 'x', ['b'])).toBe(true);
    expect(roleSelects('AnyOf', ['#a', '@x'], 'x', [])).toBe(true);
    expect(roleSelects('AnyOf', [], 'x', ['a'])).toBe(false);
  });
});

describe('AccessResolver', () => {
  let f: Fixture;
  beforeEach(() => {
    f = new Fixture();
  });
  afterEach(() => f.dispose());

  it('resolves an identity’s policies, their services and checks by role', () => {
    const alice = f.identity(['sales', 'emea']);
    const crm = f.service(['crm']);
    const wiki = f.service(['wiki', 'docs']);
    const mfa = f.check('MFA', {}, ['strong']);
    f.check('DOMAIN', { domains: ['corp'] }, ['weak']);
    const allOf = f.policy({
      semantic: 'AllOf',
      identityRoles: ['#sales', '#emea'],
      serviceRoles: ['#crm'],
      postureCheckRoles: ['#strong'],
    });
    const byId = f.policy({ type: 'Bind', identityRoles: [`@${alice.id}`], serviceRoles: [`@${wiki.id}`] });
    f.policy({ semantic: 'AllOf', identityRoles: ['#sales', '#apac'], serviceRoles: ['#all'] });
    const everyone = f.policy({
      identityRoles: ['#all'],
      serviceRoles: ['#wiki', '#nothing'],
      semantic: 'AnyOf',
    });

    const resolver = new AccessResolver(f.store);
    expect(
      resolver
        .policiesOf(alice)
        .map((p) => p.id)
        .sort(),
    ).toEqual([allOf.id, byId.id, everyone.id].sort());
    expect(resolver.checksOf(allOf).map((c) => c.id)).toEqual([mfa.id]);
    expect(resolver.checksOf(byId)).toEqual([]);
    const grants = resolver.grantsOf(alice);
    expect(Object.fromEntries(grants.map((g) => [g.service.id, g.policies.map((p) => p.id).sort()]))).toEqual(
      {
        [crm.id]: [allOf.id],
        [wiki.id]: [byId.id, everyone.id].sort(),
      },
    );
    expect(resolver.policiesFor(alice, wiki, 'Bind').map((p) => p.id)).toEqual([byId.id]);
  });

  it('reads one identity through the indexes: no listing of policies or identities, only its candidates', () => {
    const alice = f.identity(['sales']);
    const svc = f.service(['crm']);
    const mine = f.policy({ identityRoles: ['#sales'], serviceRoles: ['#crm'] });
    for (let i = 0; i < 300; i++) {
      f.identity([`team-${i}`]);
      f.policy({ identityRoles: [`#team-${i}`], serviceRoles: ['#crm'] });
    }
    const spies = [
      vi.spyOn(f.store.servicePolicies, 'list'),
      vi.spyOn(f.store.identities, 'list'),
      vi.spyOn(f.store.services, 'list'),
    ];
    const getMany = vi.spyOn(f.store.servicePolicies, 'getMany');
    const resolver = new AccessResolver(f.store);
    expect(resolver.grantsOf(alice).map((g) => [g.service.id, g.policies.map((p) => p.id)])).toEqual([
      [svc.id, [mine.id]],
    ]);
    spies.forEach((spy) => expect(spy).not.toHaveBeenCalled());
    expect(getMany.mock.calls.flatMap(([ids]) => ids)).toEqual([mine.id]);
  });

  it('caches what it read for the life of one resolver', () => {
    const alice = f.identity(['sales']);
    f.policy({ identityRoles: ['#sales'], serviceRoles: ['#all'] });
    f.service();
    const selecting = vi.spyOn(f.store.servicePolicies, 'selecting');
    const resolver = new AccessResolver(f.store);
    resolver.grantsOf(alice);
    resolver.grantsOf(alice);
    resolver.policiesOf(alice);
    expect(selecting).toHaveBeenCalledTimes(1);
  });
});
