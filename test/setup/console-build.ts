/**
 * Vitest global setup: the administrators' console built once before the workers start, as `npm run
 * controller` would build it before listening. Without it, every test that spawns the controller's CLI on a
 * fresh clone would run (and race) the same vite build before its controller listens.
 */
import {
  defaultConsoleDir,
  prepareConsole,
  viteConsoleBuilder,
} from '../../controller/console/console-build.js';

export default async function setup(): Promise<void> {
  await prepareConsole(defaultConsoleDir(), viteConsoleBuilder(), (line) => console.log(line));
}
