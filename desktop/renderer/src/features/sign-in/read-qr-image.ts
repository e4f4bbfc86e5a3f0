/**
 * "Open a QR code image…": a screenshot or photo of the enrollment QR, read in the renderer. The picture is
 * decoded with createImageBitmap and drawn on an OffscreenCanvas, so no blob: URL is ever loaded (the CSP's
 * img-src allows only 'self' and data:) and nothing leaves the page.
 */
import { decodeQrPixels, decodeSizes, type Size } from './qr-pixels.js';
import { tokenFromQrText, type QrTokenReading } from './qr-token.js';

/** Larger than any photo a phone takes; past this it is not a picture of a QR code. */
export const MAX_QR_IMAGE_BYTES = 40 * 1024 * 1024;

export async function readTokenFromQrImage(file: File): Promise<QrTokenReading> {
  if (file.size > MAX_QR_IMAGE_BYTES)
    return { ok: false, problem: `${file.name} is too large to be a picture of a QR code.` };
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    return {
      ok: false,
      problem: `${file.name} could not be read as a picture. Open a PNG or JPEG image of the QR code.`,
    };
  }
  try {
    for (const size of decodeSizes(bitmap)) {
      const text = decodeQrPixels(pixelsOf(bitmap, size), size);
      if (text !== null) return tokenFromQrText(text);
    }
  } finally {
    bitmap.close();
  }
  return {
    ok: false,
    problem: `No QR code was found in ${file.name}. Open a sharper picture with the whole code in view, or paste the token instead.`,
  };
}

function pixelsOf(bitmap: ImageBitmap, { width, height }: Size): Uint8ClampedArray {
  const canvas = new OffscreenCanvas(width, height);
  const context = canvas.getContext('2d', { willReadFrequently: true });
  if (!context) throw new Error('no 2D canvas in this renderer');
  // A transparent PNG's clear pixels read as black; white under them keeps the code's light modules light.
  context.fillStyle = '#fff';
  context.fillRect(0, 0, width, height);
  context.drawImage(bitmap, 0, 0, width, height);
  return context.getImageData(0, 0, width, height).data;
}
