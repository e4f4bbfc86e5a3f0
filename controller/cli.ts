/**
 * `npm run controller -- --data-dir D --port P`: runs the controller alone until SIGINT/SIGTERM.
 */
import { parseControllerArgs, USAGE, UsageError } from './cli-args.js';
import { startController, type RunningController } from './app.js';

async function main(): Promise<void> {
  let config;
  try {
    config = parseControllerArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`postern controller: ${err.message} (see --help)`);
      process.exit(2);
    }
    throw err;
  }
  if (config === 'help') {
    console.log(USAGE);
    return;
  }
  // Signals are handled from the start: one that arrives while the store opens still closes it cleanly.
  const running: { controller?: RunningController } = {};
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`postern controller: ${signal} received, shutting down`);
    (running.controller ? running.controller.close() : Promise.resolve()).then(
      () => process.exit(0),
      (err: unknown) => {
        console.error('postern controller: shutdown failed:', err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  const controller = await startController(config, { adminPassword: process.env.POSTERN_ADMIN_PASSWORD });
  running.controller = controller;
  if (stopping) return void (await controller.close());
  const { bootstrap } = controller;
  if (bootstrap.generatedPassword) {
    console.log(
      `postern controller: created admin user 'admin' with password ${bootstrap.generatedPassword}`,
    );
    console.log(
      `postern controller: the password is also in ${bootstrap.passwordFile} (readable only by you)`,
    );
  } else if (bootstrap.created) {
    console.log(
      `postern controller: created admin user 'admin' with the password from POSTERN_ADMIN_PASSWORD`,
    );
  }
  console.log(`postern controller: data in ${config.dataDir}`);
  console.log(`postern controller listening on ${controller.url}`);
}

main().catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  console.error(`postern controller: could not start: ${message}`);
  process.exit(1);
});
