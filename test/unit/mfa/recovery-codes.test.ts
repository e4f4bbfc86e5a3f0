import { describe, expect, it } from 'vitest';
import {
  RECOVERY_CODE_COUNT,
  findRecoveryCode,
  formatRecoveryCode,
  generateRecoveryCodes,
  normalizeRecoveryCode,
} from '../../../controller/mfa/recovery-codes.js';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

describe('recovery codes', () => {
  it('come as 10 distinct codes of 12 symbols (60 bits) from the unambiguous alphabet', () => {
    const codes = generateRecoveryCodes();
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
    for (const code of codes) expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{12}$/);
    expect(Math.log2(ALPHABET.length) * 12).toBeGreaterThanOrEqual(60);
  });

  it('use every symbol, about equally often (no modulo bias or stuck bits)', () => {
    const counts = new Map<string, number>();
    for (const code of generateRecoveryCodes(2000))
      for (const c of code) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(32);
    // 24,000 symbols: 750 expected per symbol; 600..900 is beyond 5 standard deviations
    for (const [symbol, n] of counts) expect(n, symbol).toBeGreaterThan(600);
    for (const [symbol, n] of counts) expect(n, symbol).toBeLessThan(900);
  });

  it('are shown grouped and read back with or without dashes, in any case, with look-alikes mapped', () => {
    expect(formatRecoveryCode('ABCD2345WXYZ')).toBe('ABCD-2345-WXYZ');
    for (const typed of ['ABCD-2345-WXYZ', 'abcd2345wxyz', ' abcd-2345 wxyz '])
      expect(normalizeRecoveryCode(typed)).toBe('ABCD2345WXYZ');
    expect(normalizeRecoveryCode('10ol-ilOO-0000')).toBe('100111000000');
    for (const bad of ['', 'ABCD-2345', 'ABCD-2345-WXYZ-0', 'ABCD-2345-WXYU', '123456'])
      expect(normalizeRecoveryCode(bad), bad).toBeUndefined();
  });

  it('are found by exact match only', () => {
    const stored = [
      { id: 'a', code: 'AAAA2222BBBB' },
      { id: 'b', code: 'CCCC3333DDDD' },
    ];
    expect(findRecoveryCode('CCCC3333DDDD', stored)).toBe('b');
    expect(findRecoveryCode('CCCC3333DDDE', stored)).toBeUndefined();
    expect(findRecoveryCode('CCCC3333DDD', stored)).toBeUndefined();
    expect(findRecoveryCode('CCCC3333DDDD', [])).toBeUndefined();
  });
});
