/**
 * What every command needs: the parsed options, the saved settings, the credential store, the terminal,
 * and an Agent built from them; plus signing in the way a command expects.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Agent } from '../agent.js';
import type { CredentialStore } from '../credentials/credential-store.js';
import { KeyringCredentialStore } from '../credentials/keyring-credential-store.js';
import { MemoryCredentialStore } from '../credentials/memory-credential-store.js';
import { FileCredentialStore, KeychainOrFile } from '../credentials/file-credential-store.js';
import { ACCOUNTS } from '../session/credential-vault.js';
import { clientCertificateOf, DeviceIdentityStore } from '../enrollment/device-identity.js';
import type { PowerEvents } from '../power/power-events.js';
import type { AgentOptions } from '../agent-parts.js';
import type { PromptPort } from '../prompts/prompt-port.js';
import type { AgentStatus } from '../agent.js';
import { SettingsFile, type AgentSettings } from '../settings/agent-settings.js';
import { silentLogger, stderrLogger, type AgentLogger } from '../../common/logger.js';
import { normaliseControllerUrl, type CliArgs } from './cli-args.js';
import { CliError, EXIT } from './cli-errors.js';
import { Terminal, TerminalPromptPort } from './terminal.js';
import { agentCommand } from './command-name.js';

export interface CliContext {
  args: CliArgs;
  env: NodeJS.ProcessEnv;
  terminal: Terminal;
  settingsFile: SettingsFile;
  settings: AgentSettings;
  store: CredentialStore;
  logger: AgentLogger;
}

export async function createCliContext(
  args: CliArgs,
  env: NodeJS.ProcessEnv,
  terminal: Terminal,
): Promise<CliContext> {
  const settingsFile = new SettingsFile(args.configDir);
  return {
    args,
    env,
    terminal,
    settingsFile,
    settings: await settingsFile.load(),
    store: credentialStoreFor(args.credentialStore, settingsFile, terminal),
    logger: args.verbose ? stderrLogger('debug') : args.json ? silentLogger : stderrLogger('warn'),
  };
}

/** Where the CLI keeps its secrets between commands (see --credential-store). */
function credentialStoreFor(
  kind: CliArgs['credentialStore'],
  settingsFile: SettingsFile,
  terminal: Terminal,
): CredentialStore {
  if (kind === 'memory') return new MemoryCredentialStore();
  // The session token and an enrolled device's key; never the password.
  const file = new FileCredentialStore(join(dirname(settingsFile.path), CREDENTIALS_FILE), [
    ACCOUNTS.session,
    ACCOUNTS.device,
  ]);
  if (kind === 'file') return file;
  return new KeychainOrFile(new KeyringCredentialStore(), file, (text) => terminal.warn(text));
}

export const CREDENTIALS_FILE = 'credentials.json';

/** This device's enrolled identity: its key in the credential store, its certificates beside agent.json. */
export function deviceIdentities(ctx: CliContext): DeviceIdentityStore {
  return new DeviceIdentityStore(ctx.store, dirname(ctx.settingsFile.path));
}

export function controllerUrlOf(ctx: CliContext): string {
  const url = ctx.args.controller ?? ctx.settings.controllerUrl;
  if (!url)
    throw new CliError('no controller: pass --controller URL (or set POSTERN_CONTROLLER_URL)', EXIT.usage);
  return normaliseControllerUrl(url);
}

/** The PEM bundle of `--controller-ca` (or the one remembered), if any. */
export async function readCaBundle(caFile: string | undefined): Promise<Buffer | undefined> {
  if (!caFile) return undefined;
  try {
    return await readFile(caFile);
  } catch (error) {
    throw new CliError(`cannot read the CA bundle ${caFile}: ${(error as Error).message}`);
  }
}

/** One-shot commands give up on an unreachable controller sooner than the long-running agent does. */
export const ONE_SHOT_RETRIES = 2;

export async function createAgent(
  ctx: CliContext,
  options: {
    power?: PowerEvents;
    reportIntervalMs?: number;
    longRunning?: boolean;
    tunnel?: AgentOptions['tunnel'];
    /** how codes are asked for and notices shown; the terminal unless given (the agent service's socket) */
    prompt?: PromptPort;
  } = {},
): Promise<Agent> {
  const ca = await readCaBundle(ctx.args.ca ?? ctx.settings.caFile);
  const controllerUrl = controllerUrlOf(ctx);
  const device = await deviceIdentities(ctx).load(controllerUrl);
  return new Agent({
    controllerUrl,
    credentials: ctx.store,
    prompt:
      options.prompt ??
      new TerminalPromptPort(ctx.terminal, {
        connectionNotices: options.longRunning,
        presetCode: ctx.env.POSTERN_TOTP_CODE,
      }),
    power: options.power,
    ca,
    controllerFingerprint: ctx.args.controllerFingerprint ?? ctx.settings.controllerFingerprint,
    clientCertificate: device ? clientCertificateOf(device) : undefined,
    allowPlainHttp: ctx.args.insecure,
    reportIntervalMs: options.reportIntervalMs,
    retry: options.longRunning ? undefined : { maxRetries: ONE_SHOT_RETRIES },
    logger: ctx.logger,
    tunnel: options.tunnel,
  });
}

/** POSTERN_PASSWORD with the known username: how a box without a keychain signs in for each command. */
function environmentLogin(ctx: CliContext): { username: string; password: string } | undefined {
  const username = ctx.args.username ?? ctx.settings.username;
  const password = ctx.env.POSTERN_PASSWORD;
  return username && password ? { username, password } : undefined;
}

/** Signs in from the stored session or login (or the environment). */
export function signIn(agent: Agent, ctx: CliContext): Promise<AgentStatus> {
  return agent.resume(environmentLogin(ctx));
}

/** Commands that list or report need a complete session. */
export function requireActive(status: AgentStatus): void {
  if (status.state === 'needs-totp') {
    throw new CliError(
      'no valid authenticator code was entered; this account needs one to sign in',
      EXIT.mfa,
    );
  }
  if (status.state === 'needs-enrollment') {
    throw new CliError(
      `this account must set up an authenticator app first: run ${agentCommand('mfa setup')}`,
      EXIT.mfa,
    );
  }
  if (status.state !== 'active') throw new CliError(`not signed in: run ${agentCommand('login')}`, EXIT.auth);
}
