/**
 * `npm run router -- --controller URL --enroll TOKEN --data-dir D --port P`: a standalone edge router, until
 * SIGINT/SIGTERM. Prints `router listening on tls://HOST:PORT` once agents can connect.
 */
import pino from 'pino';
import { EnrollmentError } from './enroll.js';
import { parseRouterArgs, USAGE, UsageError } from './router-args.js';
import { startRouter, type RunningRouter } from './router.js';

async function main(): Promise<void> {
  let args;
  try {
    args = parseRouterArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`postern router: ${err.message} (see --help)`);
      process.exit(2);
    }
    throw err;
  }
  if (args === 'help') return void console.log(USAGE);
  const log = pino({ level: args.logLevel, base: { role: 'router' } });
  const running: { router?: RunningRouter } = {};
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`postern router: ${signal} received, shutting down`);
    void (running.router?.close() ?? Promise.resolve()).finally(() => process.exit(0));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  const router = await startRouter({ ...args, graceMs: args.graceSeconds * 1000, log });
  running.router = router;
  if (stopping) return void (await router.close());
  console.log(`postern router: id ${router.edgeRouterId}, certificate fingerprint ${router.fingerprint}`);
  console.log(`postern router: controller ${args.controllerUrl}, data in ${args.dataDir}`);
  console.log(`router listening on ${router.url}`);
}

main().catch((err: unknown) => {
  const message = err instanceof EnrollmentError || err instanceof Error ? err.message : String(err);
  console.error(`postern router: could not start: ${message}`);
  process.exit(1);
});
