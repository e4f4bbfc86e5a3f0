/**
 * `npm ci`'s install step: builds the small Node-API addon (native/) that intercept mode and the agent
 * service need on Linux: the original destination of a redirected connection and a local peer's credentials.
 * Node has no API for either. A machine that cannot build it still installs: proxy mode needs no addon, and
 * intercept mode then says the addon is missing and how to build it (`npm run build:native`).
 * Plain JavaScript: it runs before tsx is installed.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const folder = join(dirname(fileURLToPath(import.meta.url)), '..', 'native');

if (process.platform !== 'linux') {
  console.log(`native addon: not needed on ${process.platform} (intercept mode is Linux-only for now)`);
  process.exit(0);
}
// npm hands its own node-gyp to lifecycle scripts; outside npm, the one on PATH.
const nodeGyp = process.env.npm_config_node_gyp;
const [command, args] = nodeGyp ? [process.execPath, [nodeGyp, 'rebuild']] : ['node-gyp', ['rebuild']];
const result = spawnSync(command, args, { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
if (result.status === 0) {
  console.log('native addon: built (native/build/Release/postern_net.node)');
} else {
  const why =
    result.error?.message ?? (result.stderr || result.stdout).trim().split('\n').slice(-6).join('\n');
  console.warn(
    `native addon: not built, so intercept mode and the agent service are unavailable (proxy mode works).\n` +
      `It needs python3, make and a C compiler; then run: npm run build:native\n${why}`,
  );
}
