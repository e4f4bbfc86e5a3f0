/**
 * `npm run controller -- --data-dir D --port P`: runs the controller, with its embedded edge router unless
 * `--no-router`, until SIGINT/SIGTERM.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseBundleArgs, USAGE, UsageError } from './cli-args.js';
import { startBundle, type RunningBundle } from './bundle.js';
import { boundHeapGrowth } from './heap-growth.js';
import {
  defaultConsoleDir,
  prepareConsole,
  viteConsoleBuilder,
} from '../controller/console/console-build.js';

/**
 * Where the admin password generated at the first start is kept, as a line to print, or undefined when there
 * is no such file (the password came from POSTERN_ADMIN_PASSWORD). Printed at every start and after a failed
 * one: a first start that dies after creating the admin (a busy port) must not leave its password unfound.
 */
function generatedPasswordLine(dataDir: string): string | undefined {
  const file = join(dataDir, 'admin-password');
  if (!existsSync(file)) return undefined;
  return `postern controller: the admin password generated at the first start is in ${file} (user 'admin')`;
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseBundleArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`postern controller: ${err.message} (see --help)`);
      process.exit(2);
    }
    throw err;
  }
  if (parsed === 'help') {
    console.log(USAGE);
    return;
  }
  boundHeapGrowth();
  // Signals are handled from the start: one that arrives while the store opens still closes it cleanly.
  const { config } = parsed;
  const running: { controller?: RunningBundle } = {};
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

  // Before listening, never on a request (console-build.ts); a failure is reported and the APIs start anyway.
  await prepareConsole(config.consoleDir ?? defaultConsoleDir(), viteConsoleBuilder(), (line) =>
    console.log(line),
  );
  if (stopping) return;
  let bundle: RunningBundle;
  try {
    bundle = await startBundle(config, {
      // Set but empty (`POSTERN_ADMIN_PASSWORD= npm run controller`) means unset: a password is generated.
      adminPassword: process.env.POSTERN_ADMIN_PASSWORD || undefined,
      router: parsed.router,
    });
  } catch (err) {
    const passwordLine = generatedPasswordLine(config.dataDir);
    if (passwordLine) console.error(passwordLine);
    throw err;
  }
  running.controller = bundle;
  if (stopping) return void (await bundle.close());
  const { controller, router } = bundle;
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
  } else {
    const passwordLine = generatedPasswordLine(config.dataDir);
    if (passwordLine) console.log(passwordLine);
  }
  console.log(`postern controller: data in ${config.dataDir}`);
  console.log(`postern controller listening on ${controller.url}`);
  console.log(`postern controller: administrators' console at ${controller.url}/console/`);
  if (controller.tls?.selfSigned) {
    // Printed the way certificate viewers show it; the agent takes either form.
    const fingerprint = controller.tls.fingerprint.toUpperCase().replace(/(..)(?!$)/g, '$1:');
    console.log(
      `postern controller: self-signed TLS certificate ${controller.tls.certFile}, SHA-256 fingerprint ${fingerprint}`,
    );
    console.log(
      `postern controller: agents pin it with --controller-fingerprint ${fingerprint} (or trust the file with --controller-ca)`,
    );
  }
  if (router) {
    console.log(
      `postern controller: embedded router ${router.edgeRouterId}, certificate fingerprint ${router.fingerprint}`,
    );
    console.log(`router listening on ${router.url}`);
  }
}

main().catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  console.error(`postern controller: could not start: ${message}`);
  process.exit(1);
});
