import { describe, expect, it } from 'vitest';
import { macCheck } from '../../../controller/posture/checks/mac-check.js';
import { checkFrom, ctx, data, slot } from './fixtures.js';

const withMacs = (...addresses: string[]) => data({ mac: { ...slot, addresses } });

describe('MAC check: parse', () => {
  it('accepts hyphen, colon and bare forms in any case and stores them normalised', () => {
    const result = macCheck.parse(
      { macAddresses: ['AA-BB-CC-DD-EE-FF', 'aa:bb:cc:dd:ee:01', '0011223344Ab', 'aa-bb-cc-dd-ee-ff'] },
      'create',
    );
    expect(result).toEqual({
      ok: true,
      spec: { typeId: 'MAC', macAddresses: ['aabbccddeeff', 'aabbccddee01', '0011223344ab'] },
    });
  });

  it('refuses bad addresses by index', () => {
    const result = macCheck.parse(
      {
        macAddresses: [
          'AA-BB-CC-DD-EE-FF',
          'AA-BB-CC-DD-EE',
          'AA:BB-CC:DD-EE:FF',
          42,
          'GG-BB-CC-DD-EE-FF',
          null,
        ],
      },
      'create',
    );
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problems.map((p) => p.field)).toEqual([
        'macAddresses[1]',
        'macAddresses[2]',
        'macAddresses[3]',
        'macAddresses[4]',
        'macAddresses[5]',
      ]);
    }
  });

  it('requires a non-empty list except in a patch', () => {
    expect(macCheck.parse({ macAddresses: [] }, 'create').ok).toBe(false);
    expect(macCheck.parse({}, 'update').ok).toBe(false);
    const existing = { typeId: 'MAC' as const, macAddresses: ['aabbccddeeff'] };
    expect(macCheck.parse({}, 'patch', existing)).toEqual({ ok: true, spec: existing });
    expect(macCheck.parse({ macAddresses: {} }, 'patch', existing).ok).toBe(false);
  });

  it('answers macAddresses on the wire', () => {
    expect(macCheck.toWire(checkFrom('MAC', { macAddresses: ['AA-BB-CC-DD-EE-FF'] }))).toEqual({
      macAddresses: ['aabbccddeeff'],
    });
  });
});

describe('MAC check: evaluate', () => {
  const check = checkFrom('MAC', { macAddresses: ['AA-BB-CC-DD-EE-FF'] });

  it('passes when any reported address is listed, whatever its spelling', () => {
    expect(macCheck.evaluate(check, withMacs('aabbccddeeff'), ctx()).isPassing).toBe(true);
    expect(
      macCheck.evaluate(check, withMacs('11:22:33:44:55:66', 'AA:BB:CC:DD:EE:FF'), ctx()).isPassing,
    ).toBe(true);
  });

  it('fails with normalised actual and expected values otherwise', () => {
    const result = macCheck.evaluate(check, withMacs('11-22-33-44-55-66'), ctx());
    expect(result).toMatchObject({
      isPassing: false,
      actualValue: ['112233445566'],
      expectedValue: ['aabbccddeeff'],
    });
    expect(result.reason).toContain('11:22:33:44:55:66');
  });

  it('fails when nothing was reported', () => {
    expect(macCheck.evaluate(check, null, ctx())).toMatchObject({ isPassing: false, actualValue: [] });
    expect(macCheck.evaluate(check, withMacs(), ctx()).reason).toBe(
      'the device has not reported any MAC address',
    );
  });
});
