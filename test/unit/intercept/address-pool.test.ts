import { describe, expect, it } from 'vitest';
import { AddressPool, AddressPoolExhaustedError } from '../../../src/agent/intercept/dns/address-pool.js';

describe('intercept address pool', () => {
  it('starts at .3 of 100.64.0.0/10: the network address, the link (.1) and the resolver (.2) are never given', () => {
    const pool = new AddressPool();
    expect(pool.allocate('wiki.corp')).toBe('100.64.0.3');
    expect(pool.allocate('crm.corp')).toBe('100.64.0.4');
    expect(pool.capacity).toBe(2 ** 22 - 4);
  });

  it('gives one address per name, whatever its case or trailing dot, and looks names up by address', () => {
    const pool = new AddressPool();
    const address = pool.allocate('Wiki.Corp.');
    expect(pool.allocate('wiki.corp')).toBe(address);
    expect(pool.addressOf('WIKI.corp')).toBe(address);
    expect(pool.nameOf(address)).toBe('wiki.corp');
    expect(pool.nameOf(`::ffff:${address}`)).toBe('wiki.corp');
    expect(pool.nameOf('100.64.0.200')).toBeUndefined();
    expect(pool.nameOf('fd00::1')).toBeUndefined();
    expect(pool.size).toBe(1);
  });

  it('takes the reserved count as a parameter', () => {
    expect(new AddressPool({ cidr: '10.9.0.0/24', reserved: 0 }).allocate('a')).toBe('10.9.0.1');
    expect(new AddressPool({ cidr: '10.9.0.0/24', reserved: 5 }).allocate('a')).toBe('10.9.0.6');
  });

  it('runs out with a clear error and never gives a live address to a second name', () => {
    // /29: .0 network, .1 and .2 reserved, .7 broadcast: .3 to .6 are the four addresses there are.
    const pool = new AddressPool({ cidr: '10.9.0.0/29' });
    expect(pool.capacity).toBe(4);
    const given = ['a', 'b', 'c', 'd'].map((name) => pool.allocate(name));
    expect(given).toEqual(['10.9.0.3', '10.9.0.4', '10.9.0.5', '10.9.0.6']);
    expect(() => pool.allocate('e')).toThrow(AddressPoolExhaustedError);
    expect(() => pool.allocate('e')).toThrow(
      'address pool 10.9.0.0/29 is exhausted: all 4 addresses are allocated',
    );
    // the names that have one keep it
    expect(pool.allocate('b')).toBe('10.9.0.4');
    expect(pool.release('b')).toBe(true);
    expect(pool.release('b')).toBe(false);
    expect(pool.nameOf('10.9.0.4')).toBeUndefined();
    expect(pool.allocate('e')).toBe('10.9.0.4');
    expect(pool.nameOf('10.9.0.4')).toBe('e');
    expect(() => pool.allocate('f')).toThrow(AddressPoolExhaustedError);
  });

  it('uses fresh addresses before released ones, so a cached answer does not point at another name at once', () => {
    const pool = new AddressPool({ cidr: '10.9.0.0/29' });
    pool.allocate('a');
    pool.release('a');
    expect(pool.allocate('b')).toBe('10.9.0.4');
    expect(pool.allocate('a')).toBe('10.9.0.5');
  });

  it('refuses ranges that are not IPv4 networks or leave nothing to give', () => {
    expect(() => new AddressPool({ cidr: '100.64.0.1/10' })).toThrow('not a network address');
    expect(() => new AddressPool({ cidr: 'fd00::/64' })).toThrow('not an IPv4 CIDR');
    expect(() => new AddressPool({ cidr: '10.0.0.0/33' })).toThrow('not an IPv4 CIDR');
    expect(() => new AddressPool({ cidr: '10.0.0.0' })).toThrow('not an IPv4 CIDR');
    expect(() => new AddressPool({ cidr: '10.0.0.0/30' })).toThrow('no address left');
    expect(() => new AddressPool({ reserved: -1 })).toThrow('reserved');
  });

  it("restores the previous run's names and addresses, and allocates around them", () => {
    const before = new AddressPool();
    for (const name of ['a.corp', 'b.corp', 'c.corp']) before.allocate(name);
    before.release('a.corp');
    const saved = before.entries();
    expect(saved).toEqual([
      { name: 'b.corp', address: '100.64.0.4' },
      { name: 'c.corp', address: '100.64.0.5' },
    ]);
    const after = new AddressPool();
    const skipped = after.restore([
      ...saved,
      { name: 'reserved', address: '100.64.0.2' },
      { name: 'outside', address: '10.0.0.3' },
      { name: 'twice', address: '100.64.0.4' },
      { name: 'B.corp.', address: '100.64.0.9' },
      { name: 'bad', address: 'not-an-address' },
    ]);
    expect(skipped.map((e) => e.name)).toEqual(['reserved', 'outside', 'twice', 'B.corp.', 'bad']);
    expect(after.nameOf('100.64.0.4')).toBe('b.corp');
    expect(after.allocate('c.corp')).toBe('100.64.0.5');
    expect(after.allocate('new1.corp')).toBe('100.64.0.3');
    expect(after.allocate('new2.corp')).toBe('100.64.0.6');
  });

  it('bounds the live names: at the bound, the least recently answered name gives up its address once idle', () => {
    let now = 0;
    const pool = new AddressPool({ cidr: '10.9.0.0/24', maxLive: 3, idleMs: 120_000, now: () => now });
    const a = pool.allocate('a.corp');
    pool.allocate('b.corp');
    now = 10_000;
    pool.allocate('c.corp');
    now = 100_000;
    // a lookup of a name counts as an answer: a.corp is now the most recent, b.corp the least
    expect(pool.allocate('a.corp')).toBe(a);
    // a flood of new names while every live one was answered within the idle time: refused, nothing reused
    expect(() => pool.allocate('d.corp')).toThrow(/3 names were answered in the last 120 s/);
    expect(pool.nameOf(a)).toBe('a.corp');
    now = 121_000; // b.corp idle for 121 s
    const d = pool.allocate('d.corp');
    expect(pool.addressOf('b.corp')).toBeUndefined();
    expect(pool.nameOf(d)).toBe('d.corp');
    expect(pool.size).toBe(3);
    // c.corp (answered at 10 s) is next; a.corp (100 s) is not idle yet at 200 s
    now = 200_000;
    pool.allocate('e.corp');
    expect(pool.addressOf('c.corp')).toBeUndefined();
    expect(() => pool.allocate('f.corp')).toThrow(AddressPoolExhaustedError);
    expect(pool.addressOf('a.corp')).toBe(a);
  });
});
