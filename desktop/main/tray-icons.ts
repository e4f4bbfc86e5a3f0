/**
 * The tray icon of each state, drawn in code (png-encoder.ts): a gate arch in the state's colour, with a
 * mark that stays readable without colour (a check, a bar, a dot, a hollow outline).
 */
import { Canvas, circle, ring, roundedRect, union, type Rgb, type Shape } from './png-encoder.js';
import type { TrayState } from '../agent/tray-state.js';

export const STATE_COLOURS: Record<TrayState, Rgb> = {
  'all-reachable': [46, 157, 91],
  'some-blocked': [214, 69, 69],
  // Orange: between the amber of "enter a code" and the red of a block that has happened.
  'some-warned': [232, 118, 28],
  'mfa-needed': [224, 161, 0],
  disconnected: [138, 143, 152],
};

const WHITE: Rgb = [255, 255, 255];

/** An arch: a rectangle with a round top, the shape of a postern gate. */
function arch(size: number, inset: number): Shape {
  const r = size / 2 - inset;
  return union(
    circle(size / 2, size / 2, r),
    roundedRect(inset, size / 2, size - inset, size - inset, size * 0.08),
  );
}

export function drawTrayIcon(state: TrayState, size = 32): Buffer {
  const canvas = new Canvas(size, size);
  const colour = STATE_COLOURS[state];
  const gate = arch(size, size * 0.06);
  const u = size / 32;
  if (state === 'disconnected') return canvas.fill(ring(gate, 3 * u), colour).png();
  canvas.fill(gate, colour);
  if (state === 'some-blocked') canvas.fill(roundedRect(9 * u, 16 * u, 23 * u, 20 * u, 2 * u), WHITE);
  if (state === 'mfa-needed') canvas.fill(circle(16 * u, 18 * u, 4.5 * u), WHITE);
  if (state === 'some-warned') {
    // An exclamation mark: a bar over a dot.
    canvas.fill(roundedRect(14 * u, 10 * u, 18 * u, 19.5 * u, 2 * u), WHITE);
    canvas.fill(circle(16 * u, 23.5 * u, 2.2 * u), WHITE);
  }
  if (state === 'all-reachable') {
    // A check mark from two strokes.
    const stroke =
      (x0: number, y0: number, x1: number, y1: number): Shape =>
      (x, y) => {
        const t = Math.max(
          0,
          Math.min(1, ((x - x0) * (x1 - x0) + (y - y0) * (y1 - y0)) / ((x1 - x0) ** 2 + (y1 - y0) ** 2)),
        );
        return Math.hypot(x - (x0 + t * (x1 - x0)), y - (y0 + t * (y1 - y0))) - 2 * u;
      };
    canvas.fill(
      union(stroke(10 * u, 18 * u, 14.5 * u, 22.5 * u), stroke(14.5 * u, 22.5 * u, 22 * u, 13 * u)),
      WHITE,
    );
  }
  return canvas.png();
}
