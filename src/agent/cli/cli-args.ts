/** The CLI's command line: one command (with its words) and the options every command shares. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { optionErrorText } from './option-errors.js';
import { controllerCaFile, controllerFingerprint } from '../../common/controller-ca-option.js';

export const USAGE = `Usage: postern-agent [options] <command>
       npm run agent -- [options] <command>

Commands:
  enroll --token FILE   enroll this device with the token your administrator gave you (FILE, or - for
                        stdin): a key made here and a certificate to sign in with, or a new password
  login                 sign in (asks for the password, or reads POSTERN_PASSWORD)
  login --sso [NAME]    sign in through the identity provider NAME (the only one when omitted): a code to
                        enter at the provider where it offers the device grant, else a URL to open here
  logout                end the session and forget the stored password (an enrolled device keeps its
                        certificate)
  unenroll              sign out and delete this device's enrolled identity (its key and certificate)
  status                controller, user, session and MFA state
  services              each service, whether you can reach it, and what to fix if not
  report                run one posture check cycle and print what was sent
  check                 check again: collect and send this device's posture now, then print the services
  run                   keep reporting, open the tunnels (a local port per service, and SOCKS5);
                        prompt for codes on wake/unlock/timeouts (Ctrl-C to stop)
  mfa status            whether an authenticator app is set up
  mfa setup             set up an authenticator app (QR code, recovery codes, then a code to verify)
  mfa verify [CODE]     finish setting up with a code from the app
  mfa remove [CODE]     remove MFA (a code or recovery code; none to abandon an unfinished setup)
  mfa codes [CODE]      show your recovery codes (--regenerate to replace them)
  service               the privileged agent service (root): intercept mode for the desktop app and the CLI
                        over a local socket ('service --help' for its options)
  service code [CODE]   answer the authenticator code the running service asks for

Options:
  --controller URL      controller address (or POSTERN_CONTROLLER_URL; remembered after login)
  --username NAME       login user (or POSTERN_USERNAME; remembered after login)
  --credential-store S  keyring (default), file or memory (or POSTERN_CREDENTIAL_STORE). file keeps the
                        session (never the password) in credentials.json beside agent.json, mode 0600, and
                        is what keyring falls back to where no keychain works; memory keeps nothing between
                        runs, so each command signs in again with POSTERN_PASSWORD
  --config-dir DIR      where agent.json (non-secret settings) lives (or POSTERN_CONFIG_DIR)
  --token FILE          'enroll': the enrollment token (a .jwt file, - for stdin)
  --controller-ca FILE  PEM CA bundle to trust for the controller's TLS certificate
                        (--ca is the old spelling, still accepted)
  --controller-fingerprint FP
                        pin the controller's self-signed certificate by the SHA-256 fingerprint it printed
                        at its start (remembered after login)
  --insecure            allow plain http:// to a controller that is not on this machine (credentials in clear)
  --interval SECONDS    report every SECONDS in 'run' (default 20; remembered)
  --socks-port P        'run': the local SOCKS5 port (default 1080 when free, else the one used last; 0 any)
  --no-tunnel           'run': report posture only, open no local listeners
  --intercept           'run': intercept mode (Linux, as root): programs reach each service at its real
                        name or address; without the privileges it needs, says why and exits 1
  --regenerate          with 'mfa codes': replace the recovery codes
  --json                only JSON on stdout, one value per line (text for people goes to stderr);
                        'run' prints each event so (services changed, tunnel listening or refused)
  --verbose             log what the agent does to stderr
  --help                this text

Exit codes: 0 ok, 1 error, 2 usage, 3 controller unreachable, 4 not signed in or bad credentials,
5 code refused or MFA needed.`;

export class UsageError extends Error {}

export interface CliArgs {
  command: string;
  words: string[];
  controller?: string;
  username?: string;
  credentialStore?: CredentialStoreKind;
  configDir?: string;
  ca?: string;
  controllerFingerprint?: string;
  /** `enroll --token`: a file, `-` for stdin, or the token itself */
  token?: string;
  insecure: boolean;
  intervalSeconds?: number;
  /** `run`: the SOCKS5 port (0 any free one); undefined: 1080 or the one used last */
  socksPort?: number;
  /** `run` without local listeners */
  noTunnel: boolean;
  /** `run --intercept`: the services' real addresses are intercepted (needs privileges) */
  intercept: boolean;
  regenerate: boolean;
  json: boolean;
  verbose: boolean;
  sso: boolean;
  help: boolean;
}

/** The options both CLIs (agent and admin) take: the controller, how to trust it, where secrets live, output. */
export const SHARED_OPTIONS = {
  controller: { type: 'string' },
  'controller-ca': { type: 'string' },
  /** the old spelling of --controller-ca, still accepted */
  ca: { type: 'string' },
  'controller-fingerprint': { type: 'string' },
  insecure: { type: 'boolean', default: false },
  'credential-store': { type: 'string' },
  'config-dir': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const OPTIONS = {
  ...SHARED_OPTIONS,
  username: { type: 'string' },
  token: { type: 'string' },
  interval: { type: 'string' },
  'socks-port': { type: 'string' },
  'no-tunnel': { type: 'boolean', default: false },
  intercept: { type: 'boolean', default: false },
  regenerate: { type: 'boolean', default: false },
  verbose: { type: 'boolean', default: false },
  sso: { type: 'boolean', default: false },
} as const;

/** A command line read with `options`, its refusals as one-line usage errors. */
export function parseOptions<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, strict: true, options });
  } catch (error) {
    throw new UsageError(optionErrorText(error, Object.keys(options)));
  }
}

export type CredentialStoreKind = 'keyring' | 'file' | 'memory';

/** `--credential-store`, else POSTERN_CREDENTIAL_STORE, checked. */
export function credentialStoreOf(
  value: string | undefined,
  env: NodeJS.ProcessEnv,
): CredentialStoreKind | undefined {
  const store = value ?? env.POSTERN_CREDENTIAL_STORE;
  if (store !== undefined && store !== 'keyring' && store !== 'file' && store !== 'memory')
    throw new UsageError(`--credential-store must be keyring, file or memory, got '${store}'`);
  return store;
}

export function parseCliArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): CliArgs {
  const parsed = parseOptions(argv, OPTIONS);
  const { values, positionals } = parsed;
  const [command = '', ...words] = positionals;
  const store = credentialStoreOf(values['credential-store'], env);
  let intervalSeconds: number | undefined;
  if (values.interval !== undefined) {
    intervalSeconds = Number(values.interval);
    if (!Number.isFinite(intervalSeconds) || intervalSeconds < 1)
      throw new UsageError(`--interval must be at least 1 second, got '${values.interval}'`);
  }
  let socksPort: number | undefined;
  if (values['socks-port'] !== undefined) {
    socksPort = Number(values['socks-port']);
    if (!/^\d+$/.test(values['socks-port']) || socksPort > 65535)
      throw new UsageError(
        `--socks-port must be a port number from 0 to 65535, got '${values['socks-port']}'`,
      );
  }
  if (values.intercept && values['no-tunnel'])
    throw new UsageError('--intercept and --no-tunnel cannot be used together: intercepting is tunneling');
  return {
    command,
    words,
    socksPort,
    noTunnel: values['no-tunnel'],
    intercept: values.intercept,
    controller: values.controller ?? env.POSTERN_CONTROLLER_URL,
    username: values.username ?? env.POSTERN_USERNAME,
    credentialStore: store,
    configDir: values['config-dir'] ?? env.POSTERN_CONFIG_DIR,
    ca: controllerCaFile(values, (message) => new UsageError(message)),
    controllerFingerprint: fingerprintArg(values['controller-fingerprint']),
    token: values.token,
    insecure: values.insecure === true,
    intervalSeconds,
    regenerate: values.regenerate,
    json: values.json,
    verbose: values.verbose,
    sso: values.sso,
    help: values.help,
  };
}

/** A controller URL as typed: scheme required, trailing slash dropped. */
export function normaliseControllerUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`'${text}' is not a URL; use e.g. https://controller.example.com:1280`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`the controller URL must be http(s), got '${text}'`);
  return url.toString().replace(/\/+$/, '');
}

/** A SHA-256 fingerprint as printed (`AB:CD:…`) or as bare hex; anything else is a usage error. */
export function fingerprintArg(value: string | undefined): string | undefined {
  return controllerFingerprint(value, (message) => new UsageError(message));
}
