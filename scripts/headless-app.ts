/**
 * The bundled controller with demo data and the headless agent signed in against it, in this terminal.
 * `npm run demo`, and `npm start` where the desktop shell cannot start, run it in the demo's folder. The
 * agent keeps its credentials in memory and remembers no controller, so the demo never changes what the
 * user's own agent (`npm run agent`) signs in to.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultConfig } from '../controller/config.js';
import { startBundle } from '../server/bundle.js';
import { DemoSensor, sensorProgram, startDemoWeb } from './demo/demo-web.js';
import { seedDemo } from '../controller/demo/seed-demo.js';
import { Agent } from '../src/agent/agent.js';
import { printMode, printTunnelEvents, runConsole } from '../src/agent/cli/commands/run-command.js';
import { openInterceptHost } from '../src/agent/intercept/open-intercept-host.js';
import type { TunnelOptions } from '../src/agent/tunnel/tunnel-manager.js';
import { Terminal, TerminalPromptPort } from '../src/agent/cli/terminal.js';
import { MemoryCredentialStore } from '../src/agent/credentials/memory-credential-store.js';
import { createPowerEvents } from '../src/agent/power/create-power-events.js';
import { PowerEventEmitter } from '../src/agent/power/power-events.js';
import { stderrLogger } from '../src/common/logger.js';

export interface HeadlessOptions {
  dataDir: string;
  /** 0 for a free port */
  port: number;
  /** posture report interval in seconds */
  intervalSeconds?: number;
}

/** The admin password: from the environment, else the one the controller generated on first start. */
function adminPasswordOf(dataDir: string, generated: string | undefined): string {
  const fromEnv = process.env.POSTERN_ADMIN_PASSWORD;
  if (fromEnv) return fromEnv;
  if (generated) return generated;
  const file = join(dataDir, 'admin-password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new Error(
    `no admin password: set POSTERN_ADMIN_PASSWORD (this data dir was created with one) or use a new --data-dir`,
  );
}

export async function runHeadless({ dataDir, port, intervalSeconds }: HeadlessOptions): Promise<void> {
  const config = { ...defaultConfig(dataDir), port, logLevel: 'error' };
  const bundle = await startBundle(config, { adminPassword: process.env.POSTERN_ADMIN_PASSWORD });
  const { controller } = bundle;
  // A real page behind the tunnel, and the program its posture check asks for (stop it to see the cut).
  const web = await startDemoWeb();
  const sensorFile = sensorProgram(dataDir);
  const sensor = sensorFile ? new DemoSensor(sensorFile.path) : undefined;
  sensor?.start();
  const terminal = new Terminal();
  const power = new PowerEventEmitter();
  const source = createPowerEvents();
  power.forward(source);
  try {
    const login = await seedDemo(
      controller.url,
      adminPasswordOf(dataDir, controller.bootstrap.generatedPassword),
      process.platform,
      { port: web.port, sensor: sensorFile },
    );
    terminal.print(`Postern demo: controller on ${controller.url}`);
    if (bundle.router) terminal.print(`Edge router on ${bundle.router.url}`);
    if (controller.bootstrap.generatedPassword)
      terminal.print(`Admin password (shown once): ${controller.bootstrap.generatedPassword}`);
    const passwordFile = join(dataDir, 'admin-password');
    const adminLogin = process.env.POSTERN_ADMIN_PASSWORD
      ? 'the password in POSTERN_ADMIN_PASSWORD'
      : existsSync(passwordFile)
        ? `the password in ${passwordFile}`
        : 'its password';
    terminal.print(`Administrators' console: ${controller.url}/console/ (user admin, ${adminLogin})`);
    terminal.print(`Demo identity: ${login.username} / ${login.password}`);
    terminal.print(
      `Try: 'sensor-stop' then 'sensor-start' (demo-web is cut, then back), 'unlock' (MFA prompt after an unlock), 'setup-mfa', 'services', 'quit'.`,
    );

    const intercept = await demoInterceptMode(dataDir, terminal);
    const agent = new Agent({
      controllerUrl: controller.url,
      // The demo must not touch the user's keychain; it signs in afresh on every run.
      credentials: new MemoryCredentialStore(),
      prompt: new TerminalPromptPort(terminal, { connectionNotices: true }),
      power,
      reportIntervalMs: intervalSeconds === undefined ? undefined : intervalSeconds * 1000,
      logger: stderrLogger('warn'),
      tunnel: { portsFile: join(dataDir, 'tunnel-ports.json'), intercept: intercept.options },
    });
    const offTunnel = printTunnelEvents(agent, terminal, false);
    printMode(terminal, false, agent.tunnel!.mode, intercept.whyNot);
    agent.tunnel!.events.on('event', (event) => {
      if (event.type === 'intercepting' && event.service === 'demo-web')
        terminal.print(`Open http://${event.address}/ in any program on this machine (intercept mode)`);
      if (event.type === 'listening' && event.service === 'demo-web' && event.address.startsWith('127.'))
        terminal.print(
          `Open http://${event.address}/ (or curl --socks5-hostname <socks5 address> http://demo-web.internal:8080/)`,
        );
    });
    await agent.login(login, false);
    const sensorCommands = sensor
      ? {
          'sensor-stop': async () => {
            sensor.stop();
            await new Promise((resolve) => setTimeout(resolve, 300)); // let it exit before the report looks
            terminal.print(`stopped ${sensorFile!.path}: demo-web's posture check fails at the next report`);
            return agent.reportNow();
          },
          'sensor-start': () => {
            sensor.start();
            terminal.print(`started ${sensorFile!.path}: demo-web comes back at the next report`);
            return agent.reportNow();
          },
        }
      : undefined;
    await runConsole(agent, terminal, { commands: sensorCommands });
    offTunnel();
  } finally {
    sensor?.stop();
    source.close();
    terminal.close();
    await web.close();
    await bundle.close();
  }
}

/** The environment variable that keeps the demo in proxy mode even with the privileges to intercept. */
export const DEMO_PROXY_ENV = 'POSTERN_DEMO_PROXY';

/**
 * Intercept mode when this process may change the system (root on Linux), as the agent service would run;
 * otherwise proxy mode and why. Its changes are undone when the demo stops (or at the next start after a
 * crash: the record is in the demo's folder, and a kept folder keeps it).
 */
async function demoInterceptMode(
  dataDir: string,
  terminal: Terminal,
): Promise<{ options?: TunnelOptions['intercept']; whyNot?: string }> {
  if (process.env[DEMO_PROXY_ENV])
    return { whyNot: `${DEMO_PROXY_ENV} is set, so the demo does not intercept` };
  if (process.getuid?.() !== 0) return { whyNot: 'run the demo as root (on Linux) to see intercept mode' };
  const opened = await openInterceptHost({
    stateDir: join(dataDir, 'intercept'),
    log: (message) => terminal.print(`intercept: ${message}`),
  });
  if ('unavailable' in opened) return { whyNot: `intercept mode is not available: ${opened.unavailable}` };
  // The controller and its router are on loopback, which is never intercepted: nothing to exempt.
  return { options: { host: opened.host, exempt: [] } };
}
