/**
 * Generates the app icons electron-builder packs (build/icon.png, 1024 px, from which it derives the
 * Windows .ico and macOS .icns; build/icons/<size>x<size>.png for Linux) with the same drawing code as the
 * tray icons. Run `npx tsx build/generate-icons.ts` after changing the design; the PNGs are committed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Canvas, circle, roundedRect, union, type Rgb } from '../desktop/main/png-encoder.js';

const BLUE: Rgb = [36, 86, 199];
const WHITE: Rgb = [255, 255, 255];
const NAVY: Rgb = [20, 38, 92];

function drawAppIcon(size: number): Buffer {
  const u = size / 64;
  const canvas = new Canvas(size, size);
  canvas.fill(roundedRect(2 * u, 2 * u, 62 * u, 62 * u, 13 * u), BLUE);
  // The wall's gate: a white arch with the dark doorway of the postern in it.
  canvas.fill(
    union(circle(32 * u, 28 * u, 17 * u), roundedRect(15 * u, 28 * u, 49 * u, 53 * u, 1.5 * u)),
    WHITE,
  );
  canvas.fill(
    union(circle(32 * u, 31 * u, 9 * u), roundedRect(23 * u, 31 * u, 41 * u, 53 * u, 0.5 * u)),
    NAVY,
  );
  canvas.fill(circle(36.5 * u, 42 * u, 1.6 * u), WHITE);
  return canvas.png();
}

const here = import.meta.dirname;
writeFileSync(join(here, 'icon.png'), drawAppIcon(1024));
mkdirSync(join(here, 'icons'), { recursive: true });
for (const size of [16, 32, 48, 64, 128, 256, 512])
  writeFileSync(join(here, 'icons', `${size}x${size}.png`), drawAppIcon(size));
console.log('wrote build/icon.png and build/icons/*.png');
