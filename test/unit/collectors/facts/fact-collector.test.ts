import { describe, expect, it } from 'vitest';
import { FactCollector } from '../../../../src/agent/collectors/facts/fact-collector.js';
import { FACT_COLLECTORS } from '../../../../src/agent/collectors/facts/fact-registry.js';

/** The real registry with the Linux firewall collector replaced by one the test drives. */
function withFirewall(read: () => Promise<{ enabled: boolean | null; unknownReason?: string }>) {
  let calls = 0;
  const registry = {
    ...FACT_COLLECTORS,
    FIREWALL: {
      ...FACT_COLLECTORS.FIREWALL,
      collectors: {
        linux: async () => {
          calls++;
          return read();
        },
      },
    },
  };
  let now = 1_000_000;
  const collector = new FactCollector({ platform: 'linux', registry, now: () => now });
  return {
    collector,
    calls: () => calls,
    advance: (ms: number) => (now += ms),
  };
}

describe('FactCollector', () => {
  it('answers with the check id and the fact, and reuses it for the type TTL', async () => {
    let enabled = true;
    const { collector, calls, advance } = withFirewall(async () => ({ enabled }));
    expect(await collector.collect('FIREWALL', 'fw-1')).toEqual({
      id: 'fw-1',
      typeId: 'FIREWALL',
      enabled: true,
    });
    enabled = false;
    advance(FACT_COLLECTORS.FIREWALL.ttlMs - 1);
    expect(await collector.collect('FIREWALL', 'fw-2')).toEqual({
      id: 'fw-2',
      typeId: 'FIREWALL',
      enabled: true,
    });
    expect(calls()).toBe(1);
    advance(1);
    expect(await collector.collect('FIREWALL', 'fw-1')).toMatchObject({ enabled: false });
    expect(calls()).toBe(2);
  });

  it('shares one read between concurrent callers', async () => {
    const { collector, calls } = withFirewall(
      () => new Promise((resolve) => setTimeout(() => resolve({ enabled: true }), 20)),
    );
    await Promise.all([collector.collect('FIREWALL', 'a'), collector.collect('FIREWALL', 'b')]);
    expect(calls()).toBe(1);
  });

  it('a collector that throws gives the unknown answer with its reason (cut to the wire limit), read again sooner', async () => {
    const { collector, calls, advance } = withFirewall(async () => {
      throw new Error(`nft crashed ${'x'.repeat(1000)}`);
    });
    const answer = await collector.collect('FIREWALL', 'fw');
    expect(answer).toMatchObject({ id: 'fw', typeId: 'FIREWALL', enabled: null });
    expect('unknownReason' in answer && answer.unknownReason).toMatch(/^nft crashed x+$/);
    expect('unknownReason' in answer && answer.unknownReason?.length).toBe(500);
    advance(15_000);
    await collector.collect('FIREWALL', 'fw');
    expect(calls()).toBe(2);
  });

  it('a system without a collector answers unknown, saying so', async () => {
    const collector = new FactCollector({ platform: 'freebsd' });
    expect(await collector.collect('SCREEN_LOCK', 's')).toEqual({
      id: 's',
      typeId: 'SCREEN_LOCK',
      lockEnabled: null,
      idleMinutes: null,
      unknownReason: 'Postern does not read this on freebsd',
    });
  });

  it('invalidate() forgets every answer', async () => {
    const { collector, calls } = withFirewall(async () => ({ enabled: true }));
    await collector.collect('FIREWALL', 'fw');
    collector.invalidate();
    await collector.collect('FIREWALL', 'fw');
    expect(calls()).toBe(2);
  });
});
