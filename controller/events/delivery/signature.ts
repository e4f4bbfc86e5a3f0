/**
 * The `Postern-Signature` header of a webhook delivery: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`
 * keyed by the subscription's secret. The time is signed with the body so a captured delivery cannot be
 * replayed later than the receiver's window (docs/AUDIT-DELIVERY.md: 5 minutes).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Postern-Signature';
/** How old a signature a receiver should accept (documented; the verifier below uses it). */
export const REPLAY_WINDOW_SECONDS = 300;

export function sign(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** What a receiver does (tests use it as the receiver): true when signed by `secret` within the window. */
export function verify(secret: string, body: string, header: string, nowSeconds: number): boolean {
  const parts = new Map(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > REPLAY_WINDOW_SECONDS) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${body}`).digest('hex'));
  const given = Buffer.from(v1);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
