import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * TOTP (RFC 6238) over HOTP (RFC 4226) with node:crypto, in the parameters every authenticator app
 * understands: HMAC-SHA1, 6 digits, 30-second steps. Written here rather than taken from a library so
 * the verifier can report *which* step matched (the replay guard needs it) and compare in constant time.
 */
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** steps accepted either side of now: ±1 step tolerates a clock off by up to 30 s plus typing time */
export const TOTP_WINDOW = 1;

const TOTP_FORMAT = /^\d{6}$/;

export const timeStepAt = (at: Date) => Math.floor(at.getTime() / 1000 / TOTP_PERIOD_SECONDS);

/** RFC 4226 §5.3: HMAC of the 8-byte counter, dynamic truncation, modulo 10^digits. */
export function hotp(key: Buffer, counter: number): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** TOTP_DIGITS).padStart(TOTP_DIGITS, '0');
}

export const totpAt = (key: Buffer, at: Date) => hotp(key, timeStepAt(at));

export const looksLikeTotp = (code: string) => TOTP_FORMAT.test(code);

export type TotpMatch =
  | { result: 'match'; step: number }
  /** the code is right for a step at or before the last accepted one: a replay */
  | { result: 'replayed' }
  | { result: 'invalid' };

/**
 * Checks `code` against the steps around `at`. Every candidate is computed and compared, with no early
 * exit, so the time taken does not tell which step (if any) matched. Of several matches the newest
 * step wins. Steps at or before `lastStep` never match (RFC 6238 §5.2: a code is accepted once).
 */
export function matchTotp(key: Buffer, code: string, at: Date, lastStep: number | null): TotpMatch {
  if (!looksLikeTotp(code)) return { result: 'invalid' };
  const given = Buffer.from(code);
  const now = timeStepAt(at);
  let fresh = -1;
  let replayed = false;
  for (let step = now - TOTP_WINDOW; step <= now + TOTP_WINDOW; step++) {
    const equal = timingSafeEqual(Buffer.from(hotp(key, step)), given);
    const used = lastStep !== null && step <= lastStep;
    if (equal && used) replayed = true;
    if (equal && !used) fresh = step;
  }
  if (fresh >= 0) return { result: 'match', step: fresh };
  return replayed ? { result: 'replayed' } : { result: 'invalid' };
}
