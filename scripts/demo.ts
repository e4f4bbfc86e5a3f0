/**
 * `npm run demo`: the controller on a free loopback port with demo data, and the headless agent signed in
 * against it, in one terminal. The agent's console prints the services table as access changes and takes
 * commands (`unlock` to try the MFA prompt, `enroll` to set up an authenticator app, `quit`).
 *
 *   npm run demo -- [--data-dir DIR] [--port P] [--interval SECONDS]
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { startController } from '../controller/app.js';
import { defaultConfig } from '../controller/config.js';
import { defaultDataDir } from '../controller/data-dir.js';
import { seedDemo } from '../controller/demo/seed-demo.js';
import { Agent } from '../src/agent/agent.js';
import { runConsole } from '../src/agent/cli/commands/run-command.js';
import { Terminal, TerminalPromptPort } from '../src/agent/cli/terminal.js';
import { MemoryCredentialStore } from '../src/agent/credentials/memory-credential-store.js';
import { createPowerEvents } from '../src/agent/power/create-power-events.js';
import { PowerEventEmitter } from '../src/agent/power/power-events.js';
import { stderrLogger } from '../src/agent/util/logger.js';

const USAGE = `Usage: npm run demo -- [--data-dir DIR] [--port P] [--interval SECONDS]

  --data-dir DIR      the demo controller's data (default: ${join(dirname(defaultDataDir()), 'demo')})
  --port P            loopback port (default 0: a free one)
  --interval SECONDS  posture report interval (default 20)`;

/** The admin password: from the environment, else the one the controller generated on first start. */
function adminPasswordOf(dataDir: string, generated: string | undefined): string {
  const fromEnv = process.env.POSTERN_ADMIN_PASSWORD;
  if (fromEnv) return fromEnv;
  if (generated) return generated;
  const file = join(dataDir, 'admin-password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new Error(`no admin password: set POSTERN_ADMIN_PASSWORD (this data dir was created with one) or use a new --data-dir`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { 'data-dir': { type: 'string' }, port: { type: 'string' }, interval: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = Number(values.port ?? 0);
  const interval = values.interval === undefined ? undefined : Number(values.interval);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0-65535, got '${values.port}'`);
  if (interval !== undefined && !(interval >= 1)) throw new Error(`--interval must be at least 1 second, got '${values.interval}'`);
  const dataDir = values['data-dir'] ?? join(dirname(defaultDataDir()), 'demo');
  const config = { ...defaultConfig(dataDir), port, logLevel: 'error' };
  const controller = await startController(config, { adminPassword: process.env.POSTERN_ADMIN_PASSWORD });
  const terminal = new Terminal();
  const power = new PowerEventEmitter();
  const source = createPowerEvents();
  power.forward(source);
  try {
    const login = await seedDemo(controller.url, adminPasswordOf(dataDir, controller.bootstrap.generatedPassword));
    terminal.print(`Postern demo: controller on ${controller.url} (data in ${dataDir})`);
    if (controller.bootstrap.generatedPassword) terminal.print(`Admin password (shown once): ${controller.bootstrap.generatedPassword}`);
    terminal.print(`Demo identity: ${login.username} / ${login.password}`);
    terminal.print(`Try: 'unlock' (MFA prompt after an unlock), 'enroll' (set up an authenticator app), 'services', 'quit'.`);

    const agent = new Agent({
      controllerUrl: controller.url,
      // The demo must not touch the user's keychain; it signs in afresh on every run.
      credentials: new MemoryCredentialStore(),
      prompt: new TerminalPromptPort(terminal, { connectionNotices: true }),
      power,
      reportIntervalMs: interval === undefined ? undefined : interval * 1000,
      logger: stderrLogger('warn'),
    });
    await agent.login(login, false);
    await runConsole(agent, terminal);
  } finally {
    source.close();
    terminal.close();
    await controller.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`postern demo: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
