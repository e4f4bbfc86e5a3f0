/**
 * Where `enroll --token` reads the token: a file (OpenZiti hands out `.jwt` files), `-` for standard input,
 * or, when the value is itself a JWT and no such file exists, the value, with a warning that it now sits in
 * the shell's history.
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { UsageError } from './cli-args.js';
import { CliError, EXIT } from './cli-errors.js';
import type { Terminal } from './terminal.js';

/** Three base64url parts, the first a JSON object (`{"` is `eyJ`). */
const JWT_SHAPE = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export async function readEnrollmentToken(value: string | undefined, terminal: Terminal): Promise<string> {
  if (value === undefined || value === '')
    throw new UsageError(
      "'enroll' needs --token FILE: the token file your administrator sent (- reads stdin)",
    );
  if (value === '-') {
    let line: string | null;
    do line = await terminal.readLine();
    while (line !== null && line.trim() === '');
    if (line === null) throw new CliError('no enrollment token on standard input', EXIT.usage);
    return line.trim();
  }
  if (JWT_SHAPE.test(value.trim()) && !existsSync(value)) {
    terminal.warn(
      'the token given on the command line is now in your shell history; next time pass it as a file (--token FILE) or on stdin (--token -)',
    );
    return value.trim();
  }
  try {
    return (await readFile(value, 'utf8')).trim();
  } catch (error) {
    throw new CliError(
      `cannot read the enrollment token ${value}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      EXIT.usage,
    );
  }
}
