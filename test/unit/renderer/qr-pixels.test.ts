/**
 * Reading a QR code out of pixels (jsQR), with the codes the console draws: the enrollment JWT comes back
 * exactly, light-on-dark too, and from a screenshot where the code is small; an image without a code gives
 * null. The sizes tried keep a huge photo quick without shrinking a screenshot's small code away.
 */
import { describe, expect, it } from 'vitest';
import {
  decodeQrPixels,
  decodeSizes,
  fitWithin,
  FULL_SIDE,
  QUICK_SIDE,
} from '../../../desktop/renderer/src/features/sign-in/qr-pixels.js';
import { drawQr, onCanvas, signedEnrollmentJwt } from './enrollment-qr.js';

describe('decodeQrPixels', () => {
  it("reads the enrollment JWT back from the console's 200-pixel QR code", async () => {
    const jwt = await signedEnrollmentJwt();
    const { rgba, width, height } = drawQr(jwt);
    expect(decodeQrPixels(rgba, { width, height })).toBe(jwt);
  });

  it('reads a light-on-dark code (a screenshot of a dark theme)', async () => {
    const jwt = await signedEnrollmentJwt({ em: 'updb' });
    const { rgba, width, height } = drawQr(jwt, { inverted: true, width: 300, margin: 2 });
    expect(decodeQrPixels(rgba, { width, height })).toBe(jwt);
  });

  it('finds a small code in a whole-screen screenshot', async () => {
    const jwt = await signedEnrollmentJwt();
    const screen = onCanvas(drawQr(jwt, { width: 240 }), 1920, 1080, 1300, 620);
    expect(decodeQrPixels(screen.rgba, screen)).toBe(jwt);
  });

  it('gives null for an image with no QR code', () => {
    const width = 320;
    const height = 200;
    const rgba = new Uint8ClampedArray(width * height * 4);
    // Stripes and a gradient: structure, but no finder patterns.
    for (let i = 0; i < width * height; i++) {
      const x = i % width;
      rgba.fill(x % 16 < 8 ? 40 : (x * 255) / width, i * 4, i * 4 + 3);
      rgba[i * 4 + 3] = 255;
    }
    expect(decodeQrPixels(rgba, { width, height })).toBeNull();
  });
});

describe('decodeSizes', () => {
  it('tries a small image once, at its own size', () => {
    expect(decodeSizes({ width: 640, height: 480 })).toEqual([{ width: 640, height: 480 }]);
  });

  it('tries a large photo shrunk first, then at its own size', () => {
    expect(decodeSizes({ width: 4000, height: 3000 })).toEqual([
      { width: QUICK_SIDE, height: 900 },
      { width: 4000, height: 3000 },
    ]);
  });

  it('never decodes more than FULL_SIDE pixels a side, and keeps the aspect ratio', () => {
    const [, full] = decodeSizes({ width: 12_000, height: 9_000 });
    expect(full).toEqual({ width: FULL_SIDE, height: 3072 });
  });

  it('keeps at least one pixel a side', () => {
    expect(fitWithin({ width: 100_000, height: 1 }, 100)).toEqual({ width: 100, height: 1 });
  });
});
