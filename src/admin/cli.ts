#!/usr/bin/env node
/**
 * The admin CLI: `npm run admin -- <noun> <verb>` or the `postern-admin` bin, over the controller's
 * management API, for scripts and CI. Each command prints its result (a table, or JSON with --json), or one
 * line on standard error saying what went wrong, and exits with the agent CLI's codes (see --help).
 */
import { UsageError } from '../agent/cli/cli-args.js';
import { EXIT, type ExitCode } from '../agent/cli/cli-errors.js';
import { Terminal } from '../agent/cli/terminal.js';
import { runIfEntryPoint } from '../common/entry-point.js';
import { parseAdminArgs, refuseOptionsOutside, USAGE } from './admin-args.js';
import { explainAdminError } from './admin-errors.js';
import type { AdminContext } from './admin-session.js';
import { auditCommand } from './audit-commands.js';
import { enrollCommand } from './enroll-commands.js';
import { KeptSession } from './kept-session.js';
import { resourceCommand } from './resource-commands.js';
import { findResource } from './resources.js';
import { loginCommand, logoutCommand } from './session-commands.js';

const SESSION_COMMANDS: Record<string, (ctx: AdminContext) => Promise<ExitCode>> = {
  login: loginCommand,
  logout: logoutCommand,
};

function dispatch(ctx: AdminContext): Promise<ExitCode> {
  const { noun, verb } = ctx.args;
  const session = SESSION_COMMANDS[noun];
  if (session) {
    if (verb) throw new UsageError(`unexpected argument '${verb}'`);
    refuseOptionsOutside(ctx.args, {});
    return session(ctx);
  }
  if (noun === 'enroll') return enrollCommand(ctx);
  if (noun === 'audit') return auditCommand(ctx);
  const resource = findResource(noun);
  if (resource) return resourceCommand(ctx, resource);
  throw new UsageError(noun ? `unknown noun '${noun}'` : 'no noun given');
}

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<ExitCode> {
  const warn = (text: string) => process.stderr.write(`postern-admin: ${text}\n`);
  const terminal = new Terminal({ input: process.stdin, output: process.stderr });
  try {
    const args = parseAdminArgs(argv, env);
    if (args.help || args.noun === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return EXIT.ok;
    }
    return await dispatch({
      args,
      env,
      terminal,
      print: (text) => process.stdout.write(`${text}\n`),
      kept: KeptSession.open(args.connection, warn),
    });
  } catch (error) {
    const { message, exitCode } = explainAdminError(error);
    warn(message);
    return exitCode;
  } finally {
    terminal.close();
  }
}

runIfEntryPoint(import.meta.url, 'postern-admin', (argv) => main(argv));
