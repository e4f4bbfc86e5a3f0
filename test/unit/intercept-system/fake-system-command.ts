/** A SystemCommand that records every command line and answers from a table: the unit tests' stand-in for ip/nft/resolvectl. */
import type { CommandOutcome, SystemCommand } from '../../../src/agent/intercept/system/system-command.js';
import { CommandFailed } from '../../../src/agent/intercept/system/system-command.js';

export interface FakeSystem {
  run: SystemCommand;
  lines: string[];
}

/** `answer` gets `file arg arg…`; undefined means exit 0 with no output; 'missing' means not installed. */
export function fakeSystem(
  answer: (line: string, input?: string) => Partial<CommandOutcome> | 'missing' | undefined = () => undefined,
): FakeSystem {
  const lines: string[] = [];
  const run: SystemCommand = (file, args, input) => {
    const line = [file, ...args].join(' ');
    lines.push(line);
    const a = answer(line, input);
    if (a === 'missing') return Promise.reject(new CommandFailed(line, undefined, new Error('spawn ENOENT')));
    return Promise.resolve({ stdout: '', stderr: '', code: 0, ...a });
  };
  return { run, lines };
}
