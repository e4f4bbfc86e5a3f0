/**
 * A mistyped flag in either CLI reads as one line naming the nearest option, not parseArgs' advice to put
 * the word after `--`; a value starting with '-' is told how to write it.
 */
import { describe, expect, it } from 'vitest';
import { parseAdminArgs } from '../../../src/admin/admin-args.js';
import { parseCliArgs } from '../../../src/agent/cli/cli-args.js';
import { USAGE, UsageError } from '../../../src/agent/cli/cli-args.js';
import { SERVICE_HELP } from '../../../src/agent/cli/commands/agent-service-command.js';
import { explainError } from '../../../src/agent/cli/cli-errors.js';

function usage(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('not refused');
}

describe('option errors', () => {
  it.each([
    [['identities', 'list', '--fliter', 'x'], "unknown option '--fliter'; did you mean --filter?"],
    [['identities', 'create', 'a', '--rol', 'x'], "unknown option '--rol'; did you mean --role?"],
    [
      ['identities', 'list', '--limit', '-1'],
      "--limit needs a value; one that starts with '-' is written --limit=-1, say",
    ],
    [['identities', 'list', '--colour', 'red'], "unknown option '--colour'; see --help"],
  ])('admin %j', (argv, text) => {
    expect(usage(() => parseAdminArgs(argv, {}))).toBe(text);
  });

  it.each([
    [['enroll', '--tokn', 'f.jwt'], "unknown option '--tokn'; did you mean --token?"],
    [['login', '--controler', 'http://x'], "unknown option '--controler'; did you mean --controller?"],
    [['login', '--username'], '--username needs a value'],
  ])('agent %j', (argv, text) => {
    expect(usage(() => parseCliArgs(argv, {}))).toBe(text);
  });
});

describe('the line a usage error prints', () => {
  it('points at --help once, also when the message already does', () => {
    expect(explainError(new UsageError("unknown option '--bogus'; see --help")).message).toBe(
      "unknown option '--bogus'; see --help",
    );
    expect(explainError(new UsageError('--port must be a number')).message).toBe(
      '--port must be a number (see --help)',
    );
  });
});

describe("the agent's --help", () => {
  it('lists every command the README tells a newcomer to run, `service` and `service code` included', () => {
    for (const command of ['login', 'services', 'status', 'run', 'mfa setup', 'service', 'service code'])
      expect(USAGE, command).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    expect(USAGE).toContain('--intercept');
    expect(SERVICE_HELP).toContain('--restore-only');
  });
});
