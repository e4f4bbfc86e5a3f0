import { randomBytes } from 'node:crypto';
import { generate } from 'otplib';
import { describe, expect, it } from 'vitest';
import { hotp, matchTotp, timeStepAt, totpAt } from '../../../controller/mfa/totp.js';
import { base32Encode } from '../../../controller/mfa/provisioning.js';

const RFC_KEY = Buffer.from('12345678901234567890');
const at = (seconds: number) => new Date(seconds * 1000);

describe('HOTP and TOTP', () => {
  it('match the RFC 4226 appendix D values', () => {
    const expected = [
      '755224',
      '287082',
      '359152',
      '969429',
      '338314',
      '254676',
      '287922',
      '162583',
      '399871',
      '520489',
    ];
    expect(expected.map((_, counter) => hotp(RFC_KEY, counter))).toEqual(expected);
  });

  it('match the RFC 6238 appendix B SHA-1 values (last 6 of the 8 digits)', () => {
    const vectors: [number, string][] = [
      [59, '287082'],
      [1111111109, '081804'],
      [1111111111, '050471'],
      [1234567890, '005924'],
      [2000000000, '279037'],
      [20000000000, '353130'],
    ];
    for (const [seconds, code] of vectors) expect(totpAt(RFC_KEY, at(seconds)), String(seconds)).toBe(code);
  });

  it('agree with otplib, which plays the authenticator app in the integration tests', async () => {
    const key = randomBytes(20);
    const seconds = 1_700_000_015;
    expect(totpAt(key, at(seconds))).toBe(await generate({ secret: base32Encode(key), epoch: seconds }));
  });
});

describe('matchTotp', () => {
  const key = randomBytes(20);
  const now = at(1_700_000_015);
  const step = timeStepAt(now);

  it('accepts now and one step either side, reporting the step that matched', () => {
    for (const offset of [-1, 0, 1]) {
      expect(matchTotp(key, hotp(key, step + offset), now, null)).toEqual({
        result: 'match',
        step: step + offset,
      });
    }
  });

  it('refuses two steps away', () => {
    expect(matchTotp(key, hotp(key, step - 2), now, null).result).toBe('invalid');
    expect(matchTotp(key, hotp(key, step + 2), now, null).result).toBe('invalid');
  });

  it('calls a right code for a step at or before the last accepted one a replay', () => {
    expect(matchTotp(key, hotp(key, step), now, step)).toEqual({ result: 'replayed' });
    expect(matchTotp(key, hotp(key, step - 1), now, step)).toEqual({ result: 'replayed' });
    expect(matchTotp(key, hotp(key, step + 1), now, step)).toEqual({ result: 'match', step: step + 1 });
  });

  it('refuses anything but six digits before any HMAC', () => {
    const code = hotp(key, step);
    for (const input of ['', `${code}0`, code.slice(1), ` ${code}`, `${code.slice(0, 5)}a`]) {
      expect(matchTotp(key, input, now, null).result, JSON.stringify(input)).toBe('invalid');
    }
  });
});
