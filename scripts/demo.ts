/**
 * `npm run demo`: the controller on a free loopback port with demo data, and the headless agent signed in
 * against it, in one terminal. The agent's console prints the services table as access changes and takes
 * commands (`unlock` to try the MFA prompt, `enroll` to set up an authenticator app, `quit`).
 *
 *   npm run demo -- [--data-dir DIR] [--port P] [--interval SECONDS]
 */
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultDataDir } from '../controller/data-dir.js';
import { runHeadless } from './headless-app.js';

const USAGE = `Usage: npm run demo -- [--data-dir DIR] [--port P] [--interval SECONDS]

  --data-dir DIR      the demo controller's data (default: ${join(dirname(defaultDataDir()), 'demo')})
  --port P            loopback port (default 0: a free one)
  --interval SECONDS  posture report interval (default 20)`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string' },
      port: { type: 'string' },
      interval: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = Number(values.port ?? 0);
  const interval = values.interval === undefined ? undefined : Number(values.interval);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be 0-65535, got '${values.port}'`);
  if (interval !== undefined && !(interval >= 1))
    throw new Error(`--interval must be at least 1 second, got '${values.interval}'`);
  const dataDir = values['data-dir'] ?? join(dirname(defaultDataDir()), 'demo');
  await runHeadless({ dataDir, port, intervalSeconds: interval });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`postern demo: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
