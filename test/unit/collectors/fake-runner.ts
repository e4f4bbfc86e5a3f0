import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandResult, CommandRunner } from '../../../src/agent/collectors/command-runner.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'collectors');

export function fixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

export interface RecordedCall {
  file: string;
  args: readonly string[];
  /** The PowerShell script, decoded from -EncodedCommand, when there is one. */
  script?: string;
}

/** Answers each command with the first rule whose matcher accepts it, and records every call. */
export function fakeRunner(rules: Array<[(call: RecordedCall) => boolean, CommandResult | string]>): {
  run: CommandRunner;
  calls: RecordedCall[];
} {
  const calls: RecordedCall[] = [];
  const run: CommandRunner = async (file, args) => {
    const index = args.indexOf('-EncodedCommand');
    const encoded = index >= 0 ? args[index + 1] : undefined;
    const call: RecordedCall = {
      file,
      args,
      ...(encoded ? { script: Buffer.from(encoded, 'base64').toString('utf16le') } : {}),
    };
    calls.push(call);
    const rule = rules.find(([matches]) => matches(call));
    if (!rule) return { stdout: '', stderr: `no fake for ${file}`, code: 1 };
    const answer = rule[1];
    return typeof answer === 'string' ? { stdout: answer, stderr: '', code: 0 } : answer;
  };
  return { run, calls };
}

export const scriptHas =
  (needle: string) =>
  (call: RecordedCall): boolean =>
    call.script?.includes(needle) ?? false;
