/**
 * For the QR tests: a real enrollment JWT (the controller's own CA and signer, so it is as long as the ones
 * administrators hand out) and its QR code drawn to RGBA pixels the way the `qrcode` package's PNG renderer
 * draws the console's (`width` 200, `margin` 1, level M), without a PNG decoder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import QRCode from 'qrcode';
import { loadOrCreateControllerCa } from '../../../controller/platform/keys/controller-ca.js';
import { signEnrollmentJwt } from '../../../controller/enrollment/enrollment-jwt.js';
import type { EnrollmentClaims } from '../../../src/api/enrollment.js';

export async function signedEnrollmentJwt(overrides: Partial<EnrollmentClaims> = {}): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'postern-qr-ca-'));
  try {
    const ca = await loadOrCreateControllerCa(dir, false);
    const now = Math.floor(Date.now() / 1000);
    return signEnrollmentJwt(ca, {
      iss: 'https://controller.example.com:1280',
      sub: 'c0ffee00-1d3e-4b5a-9c8d-7e6f5a4b3c2d',
      jti: '0b6f3c1e-8f0a-4c55-9a5e-0c1f2d3e4a5b',
      em: 'ott',
      iat: now,
      exp: now + 86_400,
      tlsCertSha256: 'ab'.repeat(32),
      ...overrides,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface QrPicture {
  rgba: Uint8ClampedArray;
  width: number;
  height: number;
}

/**
 * `text` as a QR code, `width` pixels square with `margin` modules of quiet zone (the scale may be fractional,
 * as the console's is), dark on light, or light on dark when `inverted`.
 */
export function drawQr(text: string, { width = 200, margin = 1, inverted = false } = {}): QrPicture {
  const { size, data } = QRCode.create(text, { errorCorrectionLevel: 'M' }).modules;
  const scale = width / (size + margin * 2);
  const rgba = new Uint8ClampedArray(width * width * 4);
  for (let y = 0; y < width; y++)
    for (let x = 0; x < width; x++) {
      const row = Math.floor((y - margin * scale) / scale);
      const column = Math.floor((x - margin * scale) / scale);
      const inside = row >= 0 && row < size && column >= 0 && column < size;
      const dark = inside && data[row * size + column] === 1;
      rgba.fill(dark !== inverted ? 0 : 255, (y * width + x) * 4, (y * width + x) * 4 + 3);
      rgba[(y * width + x) * 4 + 3] = 255;
    }
  return { rgba, width, height: width };
}

/** The picture placed at (left, top) on a larger white canvas: a screenshot where the code is a small part. */
export function onCanvas(
  picture: QrPicture,
  width: number,
  height: number,
  left: number,
  top: number,
): QrPicture {
  const rgba = new Uint8ClampedArray(width * height * 4).fill(255);
  for (let y = 0; y < picture.height; y++)
    rgba.set(
      picture.rgba.subarray(y * picture.width * 4, (y + 1) * picture.width * 4),
      ((top + y) * width + left) * 4,
    );
  return { rgba, width, height };
}
