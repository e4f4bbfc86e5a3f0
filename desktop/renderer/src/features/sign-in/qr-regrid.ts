/**
 * The console draws its QR 200 pixels wide (`qrcode` with `width`), about 2.1 pixels a module, so modules are
 * 2 or 3 pixels wide by turns; jsQR (and ZXing alike) lose the grid on such a picture, the console's PNG saved
 * as it is or screenshot at 100%. A computer-drawn code has exact edges, though: its outer box and the number
 * of modules across (17 + 4 × version, confirmed by the finder and timing patterns) give every module's
 * centre, and the code is redrawn on whole pixels for jsQR to read. Photos go to jsQR as they are.
 */
/** A picture's dimensions in pixels. */
export interface Size {
  width: number;
  height: number;
}

export interface Picture extends Size {
  rgba: Uint8ClampedArray;
}

/** Pixels a module and modules of quiet zone in the redrawn picture: easy for any reader. */
const REDRAWN_SCALE = 4;
const REDRAWN_MARGIN = 4;

/** The code in `picture`, redrawn on whole pixels, or null when it is not a clean computer-drawn QR code. */
export function redrawOnWholePixels(picture: Picture, { inverted = false } = {}): Picture | null {
  const dark = (x: number, y: number) => {
    const i = (y * picture.width + x) * 4;
    const luminance =
      (picture.rgba[i]! * 299 + picture.rgba[i + 1]! * 587 + picture.rgba[i + 2]! * 114) / 1000;
    return luminance < 128 !== inverted;
  };
  const box = darkBox(picture, dark);
  if (!box) return null;
  const side = box.right - box.left + 1;
  // Square within a pixel or two: the finder patterns make the corners of the box.
  if (Math.abs(side - (box.bottom - box.top + 1)) > Math.max(2, side / 50)) return null;
  for (let version = 1; version <= 40; version++) {
    const modules = 17 + 4 * version;
    const pitch = side / modules;
    if (pitch < 1) break;
    const bits = (row: number, column: number) =>
      dark(box.left + Math.floor((column + 0.5) * pitch), box.top + Math.floor((row + 0.5) * pitch));
    if (hasFunctionPatterns(bits, modules)) return draw(bits, modules);
  }
  return null;
}

function darkBox(picture: Picture, dark: (x: number, y: number) => boolean) {
  let left = picture.width;
  let right = -1;
  let top = picture.height;
  let bottom = -1;
  for (let y = 0; y < picture.height; y++)
    for (let x = 0; x < picture.width; x++)
      if (dark(x, y)) {
        left = Math.min(left, x);
        right = Math.max(right, x);
        top = Math.min(top, y);
        bottom = Math.max(bottom, y);
      }
  return right < 0 ? null : { left, right, top, bottom };
}

/** The three finder patterns and both timing patterns, exactly: what a QR code of that size must have. */
function hasFunctionPatterns(bit: (row: number, column: number) => boolean, modules: number): boolean {
  const finderAt = (top: number, left: number) => {
    for (let r = 0; r < 7; r++)
      for (let c = 0; c < 7; c++) {
        const ring = Math.max(Math.abs(r - 3), Math.abs(c - 3));
        if (bit(top + r, left + c) !== (ring !== 2)) return false;
      }
    return true;
  };
  if (!finderAt(0, 0) || !finderAt(0, modules - 7) || !finderAt(modules - 7, 0)) return false;
  for (let i = 8; i < modules - 8; i++)
    if (bit(6, i) !== (i % 2 === 0) || bit(i, 6) !== (i % 2 === 0)) return false;
  return true;
}

function draw(bit: (row: number, column: number) => boolean, modules: number): Picture {
  const side = (modules + 2 * REDRAWN_MARGIN) * REDRAWN_SCALE;
  const rgba = new Uint8ClampedArray(side * side * 4).fill(255);
  for (let row = 0; row < modules; row++)
    for (let column = 0; column < modules; column++) {
      if (!bit(row, column)) continue;
      for (let dy = 0; dy < REDRAWN_SCALE; dy++) {
        const y = (row + REDRAWN_MARGIN) * REDRAWN_SCALE + dy;
        const x = (column + REDRAWN_MARGIN) * REDRAWN_SCALE;
        for (let dx = 0; dx < REDRAWN_SCALE; dx++)
          rgba.fill(0, (y * side + x + dx) * 4, (y * side + x + dx) * 4 + 3);
      }
    }
  return { rgba, width: side, height: side };
}
