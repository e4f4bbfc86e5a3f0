import { describe, expect, it } from 'vitest';
import { domainCheck } from '../../../controller/posture/checks/domain-check.js';
import { checkFrom, ctx, data, slot } from './fixtures.js';

const inDomain = (domain: string) => data({ domain: { ...slot, domain } });

describe('DOMAIN check', () => {
  it('reads the list from domains or from the alternative key macAddresses, answering domains', () => {
    const fromSeed = domainCheck.parse({ macAddresses: ['corp.example'] }, 'create');
    expect(fromSeed).toEqual({ ok: true, spec: { typeId: 'DOMAIN', domains: ['corp.example'] } });
    const check = checkFrom('DOMAIN', { domains: [' CORP ', 'corp', 'lab'] });
    expect(domainCheck.toWire(check)).toEqual({ domains: ['CORP', 'lab'] });
  });

  it('names problems after the key that was sent', () => {
    const a = domainCheck.parse({ macAddresses: ['ok', ''] }, 'create');
    const b = domainCheck.parse({ domains: [1] }, 'create');
    const c = domainCheck.parse({ domains: [] }, 'create');
    expect(a.ok || a.problems.map((p) => p.field)).toEqual(['macAddresses[1]']);
    expect(b.ok || b.problems.map((p) => p.field)).toEqual(['domains[0]']);
    expect(c.ok || c.problems.map((p) => p.field)).toEqual(['domains']);
    expect(domainCheck.parse({}, 'create').ok).toBe(false);
  });

  it('matches the reported domain ignoring case, and nothing else', () => {
    const check = checkFrom('DOMAIN', { domains: ['Corp.Example'] });
    expect(domainCheck.evaluate(check, inDomain('CORP.EXAMPLE'), ctx()).isPassing).toBe(true);
    expect(domainCheck.evaluate(check, inDomain('corp.example'), ctx()).isPassing).toBe(true);
    const sub = domainCheck.evaluate(check, inDomain('eu.corp.example'), ctx());
    expect(sub).toMatchObject({
      isPassing: false,
      actualValue: 'eu.corp.example',
      expectedValue: ['Corp.Example'],
    });
    expect(sub.reason).toContain('"eu.corp.example"');
  });

  it('fails when no domain was reported', () => {
    const check = checkFrom('DOMAIN', { domains: ['corp'] });
    expect(domainCheck.evaluate(check, null, ctx())).toMatchObject({ isPassing: false, actualValue: '' });
  });

  it('patch keeps or replaces the list', () => {
    const existing = { typeId: 'DOMAIN' as const, domains: ['corp'] };
    expect(domainCheck.parse({ name: 'x' }, 'patch', existing)).toEqual({ ok: true, spec: existing });
    expect(domainCheck.parse({ domains: ['lab'] }, 'patch', existing)).toEqual({
      ok: true,
      spec: { typeId: 'DOMAIN', domains: ['lab'] },
    });
  });
});
