/**
 * Role selection (`#attr`, `@id`, `#all`, AllOf/AnyOf) for policies, services and checks, and that resolving
 * one identity reads through the role indexes (of the in-memory catalogue) instead of scanning every policy or
 * identity.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AccessResolver } from '../../../controller/access/decisions/access-resolver.js';
import { Catalogue } from '../../../controller/catalogue/catalogue.js';
import { roleSelects } from '../../../controller/catalogue/role-match.js';
import type { ServicePolicy } from '../../../controller/model.js';
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
  afterEach(async () => {
    vi.restoreAllMocks();
    await f.dispose();
  });

  it('resolves an identity’s policies, their services and checks by role', async () => {
    const alice = await f.identity(['sales', 'emea']);
    const crm = await f.service(['crm']);
    const wiki = await f.service(['wiki', 'docs']);
    const mfa = await f.check('MFA', {}, ['strong']);
    await f.check('DOMAIN', { domains: ['corp'] }, ['weak']);
    const allOf = await f.policy({
      semantic: 'AllOf',
      identityRoles: ['#sales', '#emea'],
      serviceRoles: ['#crm'],
      postureCheckRoles: ['#strong'],
    });
    const byId = await f.policy({
      type: 'Bind',
      identityRoles: [`@${alice.id}`],
      serviceRoles: [`@${wiki.id}`],
    });
    await f.policy({ semantic: 'AllOf', identityRoles: ['#sales', '#apac'], serviceRoles: ['#all'] });
    const everyone = await f.policy({
      identityRoles: ['#all'],
      serviceRoles: ['#wiki', '#nothing'],
      semantic: 'AnyOf',
    });

    const resolver = await AccessResolver.of(f.store);
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

  it('reads one identity through the indexes: no listing of policies or identities, only its candidates', async () => {
    const alice = await f.identity(['sales']);
    const svc = await f.service(['crm']);
    const mine = await f.policy({ identityRoles: ['#sales'], serviceRoles: ['#crm'] });
    for (let i = 0; i < 300; i++) {
      await f.identity([`team-${i}`]);
      await f.policy({ identityRoles: [`#team-${i}`], serviceRoles: ['#crm'] });
    }
    // The catalogue (services, policies, checks) is read once after a change, by whichever resolver comes
    // first; what is measured here is the work for one identity after that.
    await AccessResolver.of(f.store);
    const spies = [
      vi.spyOn(f.store.servicePolicies, 'list'),
      vi.spyOn(f.store.servicePolicies, 'getMany'),
      vi.spyOn(f.store.identities, 'list'),
      vi.spyOn(f.store.identities, 'getMany'),
      vi.spyOn(f.store.identities, 'get'),
      vi.spyOn(f.store.services, 'list'),
      vi.spyOn(f.store.postureChecks, 'list'),
    ];
    const selecting = vi.spyOn(Catalogue.prototype, 'selecting');
    const resolver = await AccessResolver.of(f.store);
    expect(resolver.grantsOf(alice).map((g) => [g.service.id, g.policies.map((p) => p.id)])).toEqual([
      [svc.id, [mine.id]],
    ]);
    spies.forEach((spy) => expect(spy).not.toHaveBeenCalled());
    // Only the policies naming one of alice's roles were looked at, not the 300 others.
    expect(selecting.mock.results.flatMap((r) => (r.value as ServicePolicy[]).map((p) => p.id))).toEqual([
      mine.id,
    ]);
  });

  it('sees a catalogue change made after an earlier resolver was built', async () => {
    const alice = await f.identity(['sales']);
    await f.service(['crm']);
    expect((await AccessResolver.of(f.store)).grantsOf(alice)).toEqual([]);
    const added = await f.policy({ identityRoles: ['#sales'], serviceRoles: ['#crm'] });
    expect((await AccessResolver.of(f.store)).policiesOf(alice).map((p) => p.id)).toEqual([added.id]);
  });

  it('caches what it read for the life of one resolver', async () => {
    const alice = await f.identity(['sales']);
    await f.policy({ identityRoles: ['#sales'], serviceRoles: ['#all'] });
    await f.service();
    const selecting = vi.spyOn(Catalogue.prototype, 'selecting');
    const resolver = await AccessResolver.of(f.store);
    resolver.grantsOf(alice);
    resolver.grantsOf(alice);
    resolver.policiesOf(alice);
    expect(selecting).toHaveBeenCalledTimes(1);
  });
});
