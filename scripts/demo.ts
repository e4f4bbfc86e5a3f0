/**
 * `npm run demo`: the controller on a free loopback port with demo data, and the headless agent signed in
 * against it, in one terminal. The agent's console prints the services table as access changes and takes
 * commands (`unlock` to try the MFA prompt, `enroll` to set up an authenticator app, `quit`). Everything
 * lives in a throwaway folder, deleted on exit unless `--keep` is given.
 *
 *   npm run demo -- [--keep | --data-dir DIR] [--port P] [--interval SECONDS]
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDemoFolder, removeOnSignals } from '../controller/demo/demo-folder.js';
import { runHeadless } from './headless-app.js';

const USAGE = `Usage: npm run demo -- [--keep | --data-dir DIR] [--port P] [--interval SECONDS]

  --keep              keep the demo's folder (a fresh one under the temp folder) instead of deleting it on exit
  --data-dir DIR      run on this folder (e.g. one kept earlier); it is never deleted
  --port P            loopback port (default 0: a free one)
  --interval SECONDS  posture report interval (default 20)`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      keep: { type: 'boolean' },
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
  const folder = openDemoFolder({ keep: values.keep, dir: values['data-dir'] });
  removeOnSignals(folder);
  console.log(folder.description);
  await runHeadless({ dataDir: join(folder.path, 'controller'), port, intervalSeconds: interval });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`postern demo: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
