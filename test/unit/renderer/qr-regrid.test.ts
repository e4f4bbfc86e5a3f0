/**
 * Redrawing a computer-drawn QR code on whole pixels: the console's 200-pixel code, whose modules are 2 or 3
 * pixels wide by turns, comes out with every module 4 pixels and a 4-module quiet zone, bit for bit the same
 * code; a picture that is not a clean code alone (nothing dark, or something else beside the code) gives null.
 */
import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { redrawOnWholePixels } from '../../../desktop/renderer/src/features/sign-in/qr-regrid.js';
import { drawQr, onCanvas, signedEnrollmentJwt, type QrPicture } from './enrollment-qr.js';

/** The module grid of a picture drawn `scale` pixels a module with `margin` modules around it. */
function modulesOf(picture: QrPicture, modules: number, scale: number, margin: number): number[] {
  const bits: number[] = [];
  for (let row = 0; row < modules; row++)
    for (let column = 0; column < modules; column++) {
      const x = (column + margin) * scale + scale / 2;
      const y = (row + margin) * scale + scale / 2;
      bits.push(picture.rgba[(y * picture.width + x) * 4]! < 128 ? 1 : 0);
    }
  return bits;
}

describe('redrawOnWholePixels', () => {
  it("redraws the console's 200-pixel code module for module, 4 pixels each", async () => {
    const jwt = await signedEnrollmentJwt();
    const { size, data } = QRCode.create(jwt, { errorCorrectionLevel: 'M' }).modules;
    const redrawn = redrawOnWholePixels(drawQr(jwt, { width: 200, margin: 1 }))!;
    expect(redrawn).not.toBeNull();
    expect(redrawn.width).toBe((size + 8) * 4);
    expect(modulesOf(redrawn, size, 4, 4)).toEqual(Array.from(data));
  });

  it('redraws a light-on-dark code when asked to', async () => {
    const jwt = await signedEnrollmentJwt();
    const { size, data } = QRCode.create(jwt, { errorCorrectionLevel: 'M' }).modules;
    const picture = drawQr(jwt, { width: 210, margin: 1, inverted: true });
    expect(redrawOnWholePixels(picture)).toBeNull();
    expect(modulesOf(redrawOnWholePixels(picture, { inverted: true })!, size, 4, 4)).toEqual(
      Array.from(data),
    );
  });

  it('gives null for a blank picture, and for a code with something else beside it', async () => {
    const blank = { rgba: new Uint8ClampedArray(64 * 64 * 4).fill(255), width: 64, height: 64 };
    expect(redrawOnWholePixels(blank)).toBeNull();
    const withCaption = onCanvas(drawQr(await signedEnrollmentJwt()), 260, 240, 30, 10);
    withCaption.rgba.fill(0, (230 * 260 + 30) * 4, (230 * 260 + 200) * 4);
    expect(redrawOnWholePixels(withCaption)).toBeNull();
  });
});
