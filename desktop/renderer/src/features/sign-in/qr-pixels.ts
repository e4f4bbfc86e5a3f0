/**
 * Finding a QR code in an image's pixels (jsQR, pure JavaScript: no eval, no worker, nothing the renderer's
 * CSP forbids). No DOM here, so the unit tests feed it pixels drawn from the `qrcode` package's own modules.
 */
import jsQRExport, { type Options, type QRCode } from 'jsqr';

type JsQr = (rgba: Uint8ClampedArray, width: number, height: number, options?: Options) => QRCode | null;
/**
 * jsqr is CommonJS: its default import is the function itself when bundled (and in Node), while TypeScript's
 * Node rules type it as the module object around it; either way the function is the one taken.
 */
const jsQR: JsQr =
  typeof jsQRExport === 'function'
    ? (jsQRExport as JsQr)
    : (jsQRExport as unknown as { default: JsQr }).default;

import { redrawOnWholePixels, type Picture, type Size } from './qr-regrid.js';

export type { Size };

/**
 * A phone photo is 12 megapixels and more; jsQR takes seconds on that. The first try is at most this long a
 * side, plenty for a photo the code fills.
 */
export const QUICK_SIDE = 1200;
/** A screenshot of a whole screen, where the code is a small part, needs its own pixels: up to this. */
export const FULL_SIDE = 4096;

/** The sizes to try, smallest first: a quick one, then the image's own (each capped, none twice). */
export function decodeSizes(image: Size): Size[] {
  const quick = fitWithin(image, QUICK_SIDE);
  const full = fitWithin(image, FULL_SIDE);
  return quick.width === full.width && quick.height === full.height ? [full] : [quick, full];
}

export function fitWithin({ width, height }: Size, longestSide: number): Size {
  const scale = Math.min(1, longestSide / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/**
 * The text of the QR code in RGBA pixels, or null when there is none. Light-on-dark codes (a screenshot of a
 * dark theme) are read too, and so is the console's own picture of the code, redrawn first (qr-regrid.ts).
 */
export function decodeQrPixels(rgba: Uint8ClampedArray, size: Size): string | null {
  const read = (picture: Picture) =>
    jsQR(picture.rgba, picture.width, picture.height, { inversionAttempts: 'attemptBoth' })?.data ?? null;
  const picture = { rgba, ...size };
  const asItIs = read(picture);
  if (asItIs !== null) return asItIs;
  for (const inverted of [false, true]) {
    const redrawn = redrawOnWholePixels(picture, { inverted });
    if (redrawn) return read(redrawn);
  }
  return null;
}
