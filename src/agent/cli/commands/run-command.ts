/**
 * `run`: the long-running headless agent. It reports posture on its interval, reacts to power events
 * (Linux D-Bus, or typed `wake`/`unlock`), prompts for codes in the terminal, prints the services table
 * whenever access changes, and shuts down cleanly on SIGINT/SIGTERM. `npm run demo` runs the same console.
 */
import type { Agent } from '../../agent.js';
import { createPowerEvents } from '../../power/create-power-events.js';
import { PowerEventEmitter, type PowerEvent } from '../../power/power-events.js';
import { errorMessage } from '../../../common/logger.js';
import { CliError, EXIT, type ExitCode } from '../cli-errors.js';
import { controllerUrlOf, createAgent, signIn, type CliContext } from '../cli-context.js';
import { openInterceptHost } from '../../intercept/open-intercept-host.js';
import type { TunnelOptions } from '../../tunnel/tunnel-manager.js';
import { describeResponse, servicesTable, statusLines } from '../format.js';
import type { Terminal } from '../terminal.js';
import { enrollInteractively } from './mfa-commands.js';
import { dirname, join } from 'node:path';
import { describeTunnelEvent, tunnelEventJson, type TunnelEvent } from '../../tunnel/tunnel-events.js';
import { carriersFileBeside, keepCarriersFile } from '../../tunnel/carrier-state.js';

const HELP = `Commands: services, status, report, check, code, setup-mfa, wake, unlock, help, quit`;

const SIMULATED: Record<string, PowerEvent> = {
  wake: 'resume',
  unlock: 'unlock-screen',
  lock: 'lock-screen',
  suspend: 'suspend',
};

export interface ConsoleOptions {
  /** Signals that stop the console (default SIGINT and SIGTERM); a typed `quit` always does. */
  signals?: NodeJS.Signals[];
  /** More commands (the demo's `sensor-stop`/`sensor-start`), listed in the help line. */
  commands?: Record<string, () => Promise<unknown> | void>;
  /** `--json`: each change of the services is also one `{"event":"services",…}` line on standard output. */
  json?: boolean;
}

/** Starts the signed-in agent and runs its console until a signal or `quit`; stops the agent before resolving. */
export async function runConsole(
  agent: Agent,
  terminal: Terminal,
  options: ConsoleOptions = {},
): Promise<void> {
  const t = terminal;
  const help = options.commands ? `${HELP}, ${Object.keys(options.commands).join(', ')}` : HELP;
  let lastTable = '';
  let lastError = '';
  const showServices = () => {
    const table = servicesTable(agent.services());
    if (table === lastTable) return;
    lastTable = table;
    t.print(`\n${table}\n`);
    if (options.json) t.json({ event: 'services', services: agent.services() });
  };
  const offServices = agent.serviceChanges.on(showServices);
  const offReports = agent.reporter.reports.on((result) => {
    if (result.error) {
      // One line per outage, not one per cycle.
      if (result.error.message !== lastError) t.print(`posture report failed: ${result.error.message}`);
      lastError = result.error.message;
      return;
    }
    if (lastError) t.print('posture reporting resumed');
    lastError = '';
    if (result.sent.length)
      t.print(
        `sent ${result.sent.length} posture response(s)${result.full ? ' (full resend)' : ''}: ${result.sent
          .map(describeResponse)
          .map((s) => s.split(/\s+/)[0])
          .join(', ')}`,
      );
  });

  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => (finish = resolve));
  const commands: Record<string, () => Promise<unknown> | void> = {
    help: () => t.print(help),
    services: async () => t.print(servicesTable(await agent.refreshServices())),
    status: () => t.print(statusLines(agent.status(), agent.services())),
    report: async () => {
      const r = await agent.reportNow();
      t.print(
        r.error
          ? `report failed: ${r.error.message}`
          : `sent ${r.sent.length}, unchanged ${r.unchanged.length}`,
      );
    },
    check: async () => t.print(servicesTable((await agent.checkAgain()).services)),
    code: () => agent.promptForCode(),
    'setup-mfa': () => enrollInteractively(agent, t),
    // the word's first name, kept for those used to it
    enroll: () => enrollInteractively(agent, t),
    quit: () => finish(),
    ...options.commands,
  };
  const isCommand = (line: string) => {
    const word = line.trim().toLowerCase();
    return word in SIMULATED || word in commands;
  };
  t.onCommand((line) => {
    const word = line.trim().toLowerCase();
    if (!word) return;
    const simulated = SIMULATED[word];
    if (simulated && (word === 'unlock' || word === 'wake') && agent.status().mfa !== 'enrolled')
      // The prompt after an unlock is for an authenticator app this identity does not have yet.
      t.print(
        `No code will be asked: this identity has no authenticator app set up yet, so there is no code to ` +
          `ask for. Type 'setup-mfa' to set one up, then '${word}' asks for a code.`,
      );
    const action = simulated ? () => agent.simulatePowerEvent(simulated) : commands[word];
    if (!action) {
      t.print(`unknown command '${word}'. ${help}`);
      return;
    }
    void Promise.resolve()
      .then(action)
      .catch((error: unknown) => t.print(`${word} failed: ${errorMessage(error)}`));
  }, isCommand);
  const signals = options.signals ?? ['SIGINT', 'SIGTERM'];
  const onSignal = () => finish();
  for (const s of signals) process.on(s, onSignal);

  agent.start();
  showServices();
  t.print(`Reporting every ${Math.round(agent.reporter.intervalMs / 1000)} s. ${help}. Ctrl-C stops.`);
  await done;

  for (const s of signals) process.off(s, onSignal);
  t.onCommand(undefined);
  offServices();
  offReports();
  t.print('Stopping the agent...');
  await agent.stop();
  t.close();
  t.print('Stopped.');
}

export async function runCommand(ctx: CliContext): Promise<ExitCode> {
  const intercept = ctx.args.intercept ? await interceptMode(ctx) : undefined;
  const seconds = ctx.args.intervalSeconds ?? ctx.settings.reportIntervalSeconds;
  if (ctx.args.intervalSeconds !== undefined)
    await ctx.settingsFile.update({ reportIntervalSeconds: ctx.args.intervalSeconds });
  const power = new PowerEventEmitter();
  const source = createPowerEvents({ logger: ctx.logger });
  power.forward(source);
  const agent = await createAgent(ctx, {
    power,
    reportIntervalMs: seconds === undefined ? undefined : seconds * 1000,
    longRunning: true,
    // Ports are remembered beside agent.json so a service keeps its local address across restarts.
    tunnel: ctx.args.noTunnel
      ? undefined
      : {
          portsFile: join(dirname(ctx.settingsFile.path), 'tunnel-ports.json'),
          socksPort: ctx.args.socksPort,
          intercept,
        },
  });
  const offTunnel = printTunnelEvents(agent, ctx.terminal, ctx.args.json);
  // `status` runs in a process of its own: which router carries each service is kept where it reads it.
  const offCarriers = agent.tunnel
    ? keepCarriersFile(agent.tunnel, carriersFileBeside(ctx.settingsFile.path))
    : () => undefined;
  if (agent.tunnel) printMode(ctx.terminal, ctx.args.json, agent.tunnel.mode);
  try {
    // Before signing in: a `--socks-port` that is taken ends `run` with the port and who holds it, rather
    // than an agent that runs on without the listener the user asked for.
    await agent.tunnel?.start().catch((err: unknown) => {
      throw new CliError(`socks5: ${errorMessage(err)}`);
    });
    const status = await signIn(agent, ctx);
    if (status.state === 'needs-enrollment')
      ctx.terminal.print('Set up an authenticator app first: type `setup-mfa`.');
    await runConsole(agent, ctx.terminal, { json: ctx.args.json });
    return EXIT.ok;
  } finally {
    offTunnel();
    offCarriers();
    source.close();
    await agent.stop();
  }
}

/**
 * Intercept mode's host, set up before anything else: a machine where it cannot run ends `run` with the
 * reason (exit 1), rather than an agent that quietly falls back to proxy mode the user did not ask for.
 */
export async function interceptMode(ctx: CliContext): Promise<TunnelOptions['intercept']> {
  const opened = await openInterceptHost({
    stateDir: interceptStateDir(ctx.settingsFile.path),
    log: (message) => ctx.terminal.print(`intercept: ${message}`),
  });
  if ('unavailable' in opened) throw new CliError(`intercept mode is not available: ${opened.unavailable}`);
  return { host: opened.host, exempt: [new URL(controllerUrlOf(ctx)).hostname.replace(/^\[|\]$/g, '')] };
}

/** Where intercept mode keeps its journal and the saved resolv.conf: beside agent.json. */
export function interceptStateDir(settingsPath: string): string {
  return join(dirname(settingsPath), 'intercept');
}

/** Which mode carries the services, and why: one line (one JSON event with `--json`). */
export function printMode(
  terminal: Terminal,
  json: boolean,
  mode: 'intercept' | 'proxy',
  whyNot = 'run --intercept as root to reach them at their own names',
): void {
  const why =
    mode === 'intercept'
      ? 'programs reach each service at its own name and address'
      : `programs reach services at the local addresses below or through SOCKS5; ${whyNot}`;
  if (json) terminal.jsonLine(JSON.stringify({ event: 'mode', mode, why }));
  else terminal.print(`mode: ${mode} (${why})`);
}

/** `tunnel <service>: listening on <address>` per event, or one JSON object per line with `--json`. */
export function printTunnelEvents(agent: Agent, terminal: Terminal, json: boolean): () => void {
  const print = (event: TunnelEvent) =>
    json ? terminal.jsonLine(tunnelEventJson(event)) : terminal.print(describeTunnelEvent(event));
  agent.tunnel?.events.on('event', print);
  return () => agent.tunnel?.events.off('event', print);
}
