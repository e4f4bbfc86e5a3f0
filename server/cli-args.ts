/**
 * `npm run controller` options: the controller's own (controller/composition/cli-args.ts) plus the embedded router's.
 */
import {
  parseControllerArgs,
  USAGE as CONTROLLER_USAGE,
  UsageError,
} from '../controller/composition/cli-args.js';
import type { ControllerConfig } from '../controller/config.js';
import type { RouterBundleOptions } from './bundle.js';

export { UsageError };

export const USAGE = `${CONTROLLER_USAGE.replace(
  /\n\nEnvironment:/,
  `
  --router-port P       port of the embedded edge router (default: its last port when free, else any)
  --no-router           no embedded router: this controller serves standalone routers only
  --controller-grace S  the embedded router cuts every stream after S seconds without the controller (default 30)

Environment:`,
)}`;

const ROUTER_FLAGS = new Set(['--router-port', '--controller-grace']);

export function parseBundleArgs(
  argv: string[],
): { config: ControllerConfig; router: RouterBundleOptions } | 'help' {
  const rest: string[] = [];
  const router: RouterBundleOptions = { enabled: true, graceSeconds: 30 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    if (flag === '--no-router') {
      router.enabled = false;
    } else if (ROUTER_FLAGS.has(flag)) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageError(`${flag} needs a value`);
      const n = Number(value);
      const [min, max] = flag === '--router-port' ? [0, 65535] : [1, 86_400];
      if (!/^\d+$/.test(value) || n < min || n > max)
        throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got '${value}'`);
      if (flag === '--router-port') router.port = n;
      else router.graceSeconds = n;
    } else rest.push(arg);
  }
  const config = parseControllerArgs(rest);
  if (config === 'help') return 'help';
  return { config, router };
}
