/**
 * The lines the README shows `npm run agent -- run` printing (proxy mode and intercept mode) are the lines the
 * agent prints: a newcomer comparing them word for word finds them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { printMode } from '../../../src/agent/cli/commands/run-command.js';
import type { Terminal } from '../../../src/agent/cli/terminal.js';

const README = readFileSync(join(import.meta.dirname, '..', '..', '..', 'README.md'), 'utf8');

function modeLine(mode: 'intercept' | 'proxy'): string {
  const printed: string[] = [];
  const terminal = { print: (line: string) => printed.push(line) } as unknown as Terminal;
  printMode(terminal, false, mode);
  return printed.join('\n');
}

describe("the README's agent lines", () => {
  it('show the mode line `run` prints first, in proxy mode and in intercept mode', () => {
    expect(README).toContain(`npm run agent -- run\n# ${modeLine('proxy')}\n`);
    expect(README).toContain(`npm run agent -- run --intercept\n# ${modeLine('intercept')}\n`);
  });
});
