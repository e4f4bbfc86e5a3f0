/**
 * `service`: the privileged agent service (systemd unit, Windows service, launchd daemon). Its engine is
 * `run --intercept` itself: the same agent (createAgent), the same tunnel events and the same console
 * (run-command.ts), with intercept asked for; what it adds is the local socket the desktop app and the CLI
 * use (src/agent/service/). `--restore-only` puts the system back as intercept mode found it and exits
 * (the unit's ExecStopPost).
 */
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  SHARED_OPTIONS,
  credentialStoreOf,
  fingerprintArg,
  parseOptions,
  UsageError,
  type CliArgs,
} from '../cli-args.js';
import { createAgent, createCliContext, signIn, type CliContext } from '../cli-context.js';
import { CliError, EXIT, type ExitCode } from '../cli-errors.js';
import type { Terminal } from '../terminal.js';
import { interceptMode, interceptStateDir, printTunnelEvents, runConsole } from './run-command.js';
import { restoreSystem } from '../../intercept/system/linux-system.js';
import { createPowerEvents } from '../../power/create-power-events.js';
import { PowerEventEmitter } from '../../power/power-events.js';
import { controllerCaFile } from '../../../common/controller-ca-option.js';
import { errorMessage } from '../../../common/logger.js';
import { SettingsFile } from '../../settings/agent-settings.js';
import { AgentService } from '../../service/agent-service.js';
import { DEFAULT_SERVICE_SOCKET, ServiceClient, ServiceError } from '../../service/service-client.js';
import { ServiceSocketServer } from '../../service/service-socket-server.js';

export const SERVICE_HELP = `Usage: postern-agent service [options]
       postern-agent service code [CODE]

Runs the privileged Postern agent service: the agent in intercept mode (run --intercept), serving the
desktop app and the CLI on a local socket that checks who connects. Needs root.
'service code' answers the authenticator code the running service asks for (CODE, or typed when asked);
any user the service allows may.

Options:
  --socket PATH         the socket (default ${DEFAULT_SERVICE_SOCKET})
  --allow-group NAME    members of this group may connect (default postern; root always may)
  --allow-uid N         this user may connect too (repeatable)
  --proxy-only          do not intercept: serve the socket with the agent in proxy mode (tests, or a
                        machine where intercept must not change the system)
  --restore-only        undo whatever intercept mode changed (routes, rules, resolver) and exit
  --config-dir DIR      the service's agent.json and credentials (the unit uses /var/lib/postern)
  --controller URL, --username NAME, --credential-store S, --controller-ca FILE,
  --controller-fingerprint FP, --insecure, --socks-port P, --json, --verbose: as for 'run'`;

export const SERVICE_OPTIONS = {
  ...SHARED_OPTIONS,
  username: { type: 'string' },
  'socks-port': { type: 'string' },
  verbose: { type: 'boolean', default: false },
  socket: { type: 'string' },
  'allow-group': { type: 'string' },
  'allow-uid': { type: 'string', multiple: true },
  'proxy-only': { type: 'boolean', default: false },
  'restore-only': { type: 'boolean', default: false },
} as const;

/** Whether this command line is `service` (which has options of its own, so it parses its own line). */
export function isServiceCommandLine(argv: string[]): boolean {
  const { positionals } = parseArgs({
    args: argv,
    strict: false,
    allowPositionals: true,
    options: SERVICE_OPTIONS,
  });
  return positionals[0] === 'service';
}

export interface ServiceArgs {
  cli: CliArgs;
  socket: string;
  allowGroup: string;
  allowUids: number[];
  proxyOnly: boolean;
  restoreOnly: boolean;
  /** `service code [CODE]`: answer the running service's code prompt */
  code: { given?: string } | undefined;
}

export function parseServiceArgs(argv: string[], env: NodeJS.ProcessEnv): ServiceArgs {
  const { values, positionals } = parseOptions(argv, SERVICE_OPTIONS);
  const [, word, given, ...rest] = positionals;
  if (word !== undefined && (word !== 'code' || rest.length > 0))
    throw new UsageError(
      `'service' takes no words but 'code [CODE]', got '${positionals.slice(1).join(' ')}'`,
    );
  const allowUids = (values['allow-uid'] ?? []).map((text) => {
    if (!/^\d+$/.test(text) || Number(text) > 0xfffffffe)
      throw new UsageError(`--allow-uid must be a numeric user id, got '${text}'`);
    return Number(text);
  });
  const group = values['allow-group'] ?? 'postern';
  if (!/^[A-Za-z_][A-Za-z0-9_.-]{0,31}$/.test(group))
    throw new UsageError(`--allow-group must be a group name, got '${group}'`);
  const socksText = values['socks-port'];
  if (socksText !== undefined && (!/^\d+$/.test(socksText) || Number(socksText) > 65535))
    throw new UsageError(`--socks-port must be a port number from 0 to 65535, got '${socksText}'`);
  const cli: CliArgs = {
    command: 'service',
    words: [],
    sso: false,
    controller: values.controller ?? env.POSTERN_CONTROLLER_URL,
    username: values.username ?? env.POSTERN_USERNAME,
    credentialStore: credentialStoreOf(values['credential-store'], env),
    configDir: values['config-dir'] ?? env.POSTERN_CONFIG_DIR,
    ca: controllerCaFile(values, (message) => new UsageError(message)),
    controllerFingerprint: fingerprintArg(values['controller-fingerprint']),
    insecure: values.insecure === true,
    socksPort: socksText === undefined ? undefined : Number(socksText),
    noTunnel: false,
    intercept: !values['proxy-only'],
    regenerate: false,
    json: values.json,
    verbose: values.verbose,
    help: values.help,
  };
  return {
    cli,
    socket: values.socket ?? env.POSTERN_SERVICE_SOCKET ?? DEFAULT_SERVICE_SOCKET,
    allowGroup: group,
    allowUids,
    proxyOnly: values['proxy-only'],
    restoreOnly: values['restore-only'],
    code: word === 'code' ? { given } : undefined,
  };
}

/** `--restore-only` (the unit's ExecStopPost): undoes what intercept mode changed, says what, and exits. */
export async function restoreOnly(stateDir: string, terminal: Terminal): Promise<ExitCode> {
  const report = await restoreSystem({ stateDir });
  terminal.print(
    report.removed.length
      ? `Undid intercept mode's changes: ${report.removed.join(', ')}.`
      : 'Nothing to undo: intercept mode left no changes on this system.',
  );
  if (report.failed.length === 0) return EXIT.ok;
  throw new CliError(
    `could not undo everything (tried again at the next start): ${report.failed.join('; ')}`,
  );
}

export async function agentServiceCommand(
  argv: string[],
  env: NodeJS.ProcessEnv,
  terminal: Terminal,
): Promise<ExitCode> {
  const args = parseServiceArgs(argv, env);
  if (args.cli.json) terminal.jsonOnStdout();
  if (args.cli.help) {
    terminal.print(SERVICE_HELP);
    return EXIT.ok;
  }
  if (args.code) return submitCode(args.socket, args.code.given, terminal);
  if (args.restoreOnly)
    return restoreOnly(interceptStateDir(new SettingsFile(args.cli.configDir).path), terminal);
  if (process.getuid?.() !== 0)
    throw new CliError(
      'the Postern service must run as root: intercept mode changes routes, firewall rules and the resolver, and the socket it serves is owned by root (install it as a system service, or run it with sudo)',
    );
  const ctx = await createCliContext(args.cli, env, terminal);
  return serve(ctx, args, dirname(ctx.settingsFile.path));
}

/** `service code [CODE]`: a client of the running service, answering the prompt it raised. */
async function submitCode(socket: string, given: string | undefined, terminal: Terminal): Promise<ExitCode> {
  let client: ServiceClient;
  try {
    client = await ServiceClient.connect(socket);
  } catch (error) {
    throw new CliError(`cannot reach the Postern service on ${socket}: ${errorMessage(error)}`);
  }
  try {
    const code =
      given ?? (await terminal.ask('Authenticator code (or a recovery code): ', { hidden: true }))?.trim();
    if (!code) throw new CliError('no code given', EXIT.usage);
    const { accepted } = await client.request('submitCode', { code });
    if (!accepted) throw new CliError('the code was not accepted; the service asks again', EXIT.mfa);
    terminal.print('Code accepted.');
    return EXIT.ok;
  } catch (error) {
    if (error instanceof ServiceError) throw new CliError(`the Postern service: ${error.message}`, EXIT.mfa);
    throw error;
  } finally {
    client.close();
  }
}

async function serve(ctx: CliContext, args: ServiceArgs, configDir: string): Promise<ExitCode> {
  let server: ServiceSocketServer | undefined;
  const service = new AgentService((event) => server?.broadcast(event));
  try {
    server = await ServiceSocketServer.listen({
      path: args.socket,
      policy: { allowGroup: args.allowGroup, allowUids: args.allowUids },
      handlers: service.handlers(),
      logger: ctx.logger,
    });
  } catch (error) {
    throw new CliError(`cannot serve ${args.socket}: ${errorMessage(error)}`);
  }
  ctx.terminal.print(`The Postern service listens on ${args.socket} (pid ${process.pid}).`);
  try {
    if (!(ctx.args.controller ?? ctx.settings.controllerUrl)) {
      service.setProblem(
        `no controller configured: enroll or sign in with --config-dir ${configDir}, or pass --controller`,
        { mode: 'proxy', why: 'the service has no controller to sign in to' },
      );
      await untilSignal();
      return EXIT.ok;
    }
    return await runAgent(ctx, args, service);
  } finally {
    await server.close();
  }
}

/** `run --intercept`'s engine with the service's prompt port. */
async function runAgent(ctx: CliContext, args: ServiceArgs, service: AgentService): Promise<ExitCode> {
  const power = new PowerEventEmitter();
  const source = createPowerEvents({ logger: ctx.logger });
  power.forward(source);
  // A service that cannot intercept here still serves its users in proxy mode, and says why.
  let whyNotIntercepting = 'the service was started with --proxy-only';
  let intercept: Awaited<ReturnType<typeof interceptMode>>;
  if (ctx.args.intercept)
    intercept = await interceptMode(ctx).catch((error: unknown) => {
      whyNotIntercepting = errorMessage(error);
      ctx.terminal.print(`${whyNotIntercepting}; serving proxy mode`);
      return undefined;
    });
  const agent = await createAgent(ctx, {
    power,
    longRunning: true,
    prompt: service.prompts,
    tunnel: {
      portsFile: join(dirname(ctx.settingsFile.path), 'tunnel-ports.json'),
      socksPort: ctx.args.socksPort,
      intercept,
    },
  });
  service.attach(agent);
  const offTunnel = printTunnelEvents(agent, ctx.terminal, ctx.args.json);
  try {
    await agent.tunnel?.start().catch((err: unknown) => {
      throw new CliError(`socks5: ${errorMessage(err)}`);
    });
    service.settleMode(whyNotIntercepting);
    try {
      await signIn(agent, ctx);
      service.setProblem(null);
    } catch (error) {
      // The service stays up and says why: a user can enroll or sign in and restart it.
      service.setProblem(`not signed in: ${errorMessage(error)}`);
      ctx.terminal.print(`The service is not signed in: ${errorMessage(error)}`);
      await untilSignal();
      return EXIT.ok;
    }
    await runConsole(agent, ctx.terminal, { json: ctx.args.json });
    return EXIT.ok;
  } finally {
    offTunnel();
    service.detach();
    source.close();
    await agent.stop();
  }
}

function untilSignal(signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM']): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      for (const s of signals) process.off(s, stop);
      resolve();
    };
    for (const s of signals) process.on(s, stop);
  });
}
