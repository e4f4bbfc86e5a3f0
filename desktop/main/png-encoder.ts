/**
 * A minimal PNG encoder (8-bit RGBA, no filtering) and an anti-aliased shape rasteriser, so the tray icons
 * are drawn in code for each state instead of shipped as files, and the app icons in build/ are generated
 * by the same code (build/generate-icons.ts).
 */
import { deflateSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

export function encodePng(width: number, height: number, rgba: Uint8Array): Buffer {
  if (rgba.length !== width * height * 4) throw new Error('pixel buffer does not match the size');
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA, deflate, no filter method, no interlace
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0; // filter type None
    Buffer.from(rgba.buffer, rgba.byteOffset + y * width * 4, width * 4).copy(raw, y * (width * 4 + 1) + 1);
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export type Rgb = readonly [number, number, number];

/** Signed distance from a point to a shape, in pixels: negative inside. */
export type Shape = (x: number, y: number) => number;

export const circle =
  (cx: number, cy: number, r: number): Shape =>
  (x, y) =>
    Math.hypot(x - cx, y - cy) - r;

export const roundedRect =
  (x0: number, y0: number, x1: number, y1: number, r: number): Shape =>
  (x, y) => {
    const dx = Math.max(x0 + r - x, 0, x - (x1 - r));
    const dy = Math.max(y0 + r - y, 0, y - (y1 - r));
    return Math.hypot(dx, dy) - r;
  };

export const union =
  (...shapes: Shape[]): Shape =>
  (x, y) =>
    Math.min(...shapes.map((s) => s(x, y)));
export const ring =
  (shape: Shape, width: number): Shape =>
  (x, y) =>
    Math.abs(shape(x, y)) - width / 2;

/** A canvas that paints shapes over each other with one-pixel anti-aliased edges. */
export class Canvas {
  readonly pixels: Uint8Array;
  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.pixels = new Uint8Array(width * height * 4);
  }

  fill(shape: Shape, [r, g, b]: Rgb, opacity = 1): this {
    for (let y = 0; y < this.height; y++) {
      for (let x = 0; x < this.width; x++) {
        const coverage = Math.min(1, Math.max(0, 0.5 - shape(x + 0.5, y + 0.5))) * opacity;
        if (coverage <= 0) continue;
        const i = (y * this.width + x) * 4;
        const under = this.pixels[i + 3]! / 255;
        const alpha = coverage + under * (1 - coverage);
        const mix = (top: number, bottom: number) =>
          Math.round((top * coverage + bottom * under * (1 - coverage)) / alpha);
        this.pixels.set(
          [
            mix(r, this.pixels[i]!),
            mix(g, this.pixels[i + 1]!),
            mix(b, this.pixels[i + 2]!),
            Math.round(alpha * 255),
          ],
          i,
        );
      }
    }
    return this;
  }

  png(): Buffer {
    return encodePng(this.width, this.height, this.pixels);
  }
}
