#!/usr/bin/env node
/**
 * The headless agent: `npm run agent -- <command>` or the `postern-agent` bin. Each command prints its
 * result, or one line saying what went wrong, and exits with a code scripts can branch on (see --help).
 */
import { parseCliArgs, USAGE, UsageError } from './cli/cli-args.js';
import { createCliContext, type CliContext } from './cli/cli-context.js';
import { EXIT, explainError, type ExitCode } from './cli/cli-errors.js';
import { agentServiceCommand, isServiceCommandLine } from './cli/commands/agent-service-command.js';
import { enrollCommand, unenrollCommand } from './cli/commands/enroll-commands.js';
import { mfaCommand } from './cli/commands/mfa-commands.js';
import { runCommand } from './cli/commands/run-command.js';
import { checkCommand, reportCommand, servicesCommand } from './cli/commands/service-commands.js';
import { loginCommand, logoutCommand, statusCommand } from './cli/commands/session-commands.js';
import { Terminal } from './cli/terminal.js';
import { runIfEntryPoint } from '../common/entry-point.js';

const COMMANDS: Record<string, (ctx: CliContext) => Promise<ExitCode>> = {
  enroll: enrollCommand,
  unenroll: unenrollCommand,
  login: loginCommand,
  logout: logoutCommand,
  status: statusCommand,
  services: servicesCommand,
  report: reportCommand,
  check: checkCommand,
  run: runCommand,
  mfa: mfaCommand,
};

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<ExitCode> {
  const terminal = new Terminal();
  try {
    // `service` has options of its own (the socket, who may connect): it reads its whole command line.
    if (isServiceCommandLine(argv)) return await agentServiceCommand(argv, env, terminal);
    const args = parseCliArgs(argv, env);
    if (args.json) terminal.jsonOnStdout();
    if (args.help || args.command === 'help') {
      terminal.print(USAGE);
      return EXIT.ok;
    }
    const command = COMMANDS[args.command];
    if (!command)
      throw new UsageError(args.command ? `unknown command '${args.command}'` : 'no command given');
    return await command(await createCliContext(args, env, terminal));
  } catch (error) {
    const { message, exitCode } = explainError(error);
    process.stderr.write(`postern-agent: ${message}\n`);
    return exitCode;
  } finally {
    terminal.close();
  }
}

runIfEntryPoint(import.meta.url, 'postern-agent', (argv) => main(argv));
