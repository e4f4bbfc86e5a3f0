import { randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Recovery codes: 10 codes of 12 symbols from Crockford's base32 alphabet (5 bits each, 60 bits per code),
 * shown as `XXXX-XXXX-XXXX`. The alphabet has no I, L, O or U, so a code read off paper is not misread;
 * on input the look-alikes are mapped back (O→0, I/L→1), dashes and spaces dropped and case ignored.
 * They must be shown again on request (`GET /recovery-codes` returns the current list), so they are kept
 * sealed rather than hashed (secret-box.ts).
 */
export const RECOVERY_CODE_COUNT = 10;
export const RECOVERY_CODE_LENGTH = 12;

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const LOOK_ALIKES: Record<string, string> = { O: '0', I: '1', L: '1' };
const CANONICAL = new RegExp(`^[${ALPHABET}]{${RECOVERY_CODE_LENGTH}}$`);

/** One code in canonical form (12 symbols, no dashes): 60 bits straight from the CSPRNG. */
function generateOne(): string {
  let bits = randomBytes(8).readBigUInt64BE() >> 4n;
  let code = '';
  for (let i = 0; i < RECOVERY_CODE_LENGTH; i++) {
    code += ALPHABET[Number(bits & 31n)];
    bits >>= 5n;
  }
  return code;
}

/** A fresh set of distinct codes in canonical form. */
export function generateRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  const codes = new Set<string>();
  while (codes.size < count) codes.add(generateOne());
  return [...codes];
}

/** `ABCD2345WXYZ` → `ABCD-2345-WXYZ`, the form users see. */
export const formatRecoveryCode = (canonical: string) => canonical.match(/.{1,4}/g)!.join('-');

/** What the user typed, in canonical form; undefined when it cannot be a recovery code at all. */
export function normalizeRecoveryCode(input: string): string | undefined {
  const code = input
    .replace(/[\s-]/g, '')
    .toUpperCase()
    .replace(/[OIL]/g, (c) => LOOK_ALIKES[c]!);
  return CANONICAL.test(code) ? code : undefined;
}

/**
 * The id of the stored code equal to `candidate` (canonical form), comparing against every stored code
 * in constant time so the time taken does not reveal how much of a code was right or which one matched.
 */
export function findRecoveryCode(
  candidate: string,
  stored: readonly { id: string; code: string }[],
): string | undefined {
  const given = Buffer.from(candidate.padEnd(RECOVERY_CODE_LENGTH).slice(0, RECOVERY_CODE_LENGTH));
  let found: string | undefined;
  for (const { id, code } of stored) {
    const other = Buffer.from(code.padEnd(RECOVERY_CODE_LENGTH).slice(0, RECOVERY_CODE_LENGTH));
    if (timingSafeEqual(given, other) && candidate.length === code.length) found = id;
  }
  return found;
}
