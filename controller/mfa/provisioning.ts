import QRCode from 'qrcode';
import { TOTP_DIGITS, TOTP_PERIOD_SECONDS } from './totp.js';

/**
 * What an authenticator app needs to add the account: the `otpauth://` key URI (Google Authenticator's
 * Key Uri Format) and a QR code of it.
 */
const RFC4648 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding, the form authenticator apps expect for the secret. */
export function base32Encode(bytes: Buffer): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xfff; // at most 12 bits are ever pending
    bits += 8;
    while (bits >= 5) {
      out += RFC4648[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += RFC4648[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * `otpauth://totp/<issuer>:<name>?issuer=<issuer>&secret=<base32>&algorithm=SHA1&digits=6&period=30`.
 * Unlike OpenZiti, which leaves the label unescaped, both label parts and the issuer are percent-encoded
 * (RFC 3986): a name with a space, `:`, `?`, `&` or `/` would otherwise change what the app reads (a `:`
 * in the name would even split the label at the wrong place). The optional parameters are spelled out
 * so no app has to guess.
 */
export function provisioningUrl(issuer: string, accountName: string, secret: Buffer): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(accountName)}`;
  const query = [
    `issuer=${encodeURIComponent(issuer)}`,
    `secret=${base32Encode(secret)}`,
    'algorithm=SHA1',
    `digits=${TOTP_DIGITS}`,
    `period=${TOTP_PERIOD_SECONDS}`,
  ].join('&');
  return `otpauth://totp/${label}?${query}`;
}

/** A 256-pixel PNG of the URL, medium error correction (as OpenZiti serves it). */
export function qrCodePng(url: string): Promise<Buffer> {
  return QRCode.toBuffer(url, { type: 'png', errorCorrectionLevel: 'M', width: 256, margin: 2 });
}
