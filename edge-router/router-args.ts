import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { controllerCaFile, controllerFingerprint } from '../src/common/controller-ca-option.js';

export const USAGE = `Usage: npm run router -- --controller URL --data-dir D [options]

  --controller URL        the controller's address, e.g. http://127.0.0.1:1280 (required)
  --enroll TOKEN          one-time enrollment token, or the router's enrollment JWT (as ZAC downloads it),
                          or a file holding either; needed on the first start only
  --data-dir D            where the router keeps its key, certificate and enrollment (required)
  --port P                TCP port for agent connections; 0 picks a free one (default 3022)
  --host H                address to listen on (default 127.0.0.1)
  --advertise NAME        the host name or address agents reach this router by (default: --host)
  --controller-grace S    seconds without the controller before every stream is cut (default 30)
  --controller-ca FILE    PEM CA bundle for an https controller with a private certificate (alias --ca)
  --controller-fingerprint FP
                          trust the one self-signed certificate whose SHA-256 fingerprint the controller
                          printed at its start, instead of a CA bundle
  --log-level L           fatal, error, warn, info, debug or trace (default info)
  --help                  this text`;

export class UsageError extends Error {}

export interface RouterArgs {
  controllerUrl: string;
  enrollToken?: string;
  dataDir: string;
  port: number;
  host: string;
  advertisedHost?: string;
  graceSeconds: number;
  controllerCa?: string;
  controllerFingerprint?: string;
  logLevel: string;
}

const whole = (name: string, value: string | undefined, fallback: number, min: number, max: number) => {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max)
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got '${value}'`);
  return n;
};

/**
 * The token itself, or the contents of a file holding it (an administrator may hand either over). An
 * enrollment JWT (the router detail's `enrollmentJwt`, which ZAC offers as a download) carries the token as
 * its `jti`; its signature is not checked here: the controller checks the token it carries.
 */
function tokenOf(value: string): string {
  let text: string;
  try {
    text = readFileSync(value, 'utf8').trim();
  } catch {
    text = value.trim();
  }
  return tokenInJwt(text) ?? text;
}

function tokenInJwt(text: string): string | undefined {
  const parts = text.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { jti?: unknown };
    return typeof claims.jti === 'string' ? claims.jti : undefined;
  } catch {
    return undefined;
  }
}

export function parseRouterArgs(argv: string[]): RouterArgs | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        controller: { type: 'string' },
        enroll: { type: 'string' },
        'data-dir': { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        advertise: { type: 'string' },
        'controller-grace': { type: 'string' },
        'controller-ca': { type: 'string' },
        // the agent's and admin CLI's old spelling of --controller-ca, accepted here too
        ca: { type: 'string' },
        'controller-fingerprint': { type: 'string' },
        'log-level': { type: 'string' },
        help: { type: 'boolean' },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help) return 'help';
  if (!values.controller) throw new UsageError('--controller URL is required');
  if (!/^https?:\/\//.test(values.controller))
    throw new UsageError(`--controller must be an http:// or https:// URL, got '${values.controller}'`);
  if (!values['data-dir']) throw new UsageError('--data-dir D is required');
  const logLevel = values['log-level'] ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel))
    throw new UsageError(
      `--log-level must be fatal, error, warn, info, debug, trace or silent, got '${logLevel}'`,
    );
  const caFile = controllerCaFile(values, (message) => new UsageError(message));
  return {
    controllerUrl: values.controller,
    enrollToken: values.enroll === undefined ? undefined : tokenOf(values.enroll),
    dataDir: values['data-dir'],
    port: whole('port', values.port, 3022, 0, 65535),
    host: values.host ?? '127.0.0.1',
    advertisedHost: values.advertise,
    graceSeconds: whole('controller-grace', values['controller-grace'], 30, 1, 86_400),
    controllerCa: caFile ? readFileSync(caFile, 'utf8') : undefined,
    controllerFingerprint: controllerFingerprint(
      values['controller-fingerprint'],
      (message) => new UsageError(message),
    ),
    logLevel,
  };
}
