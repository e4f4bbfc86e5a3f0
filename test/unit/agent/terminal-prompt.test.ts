/** The CLI's TOTP prompt: POSTERN_TOTP_CODE answers the first prompt once, then the terminal is asked. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Terminal, TerminalPromptPort } from '../../../src/agent/cli/terminal.js';
import type { TotpPrompt } from '../../../src/api/prompts.js';

const prompt: TotpPrompt = { reason: 'login', services: [], attempt: 1, acceptsRecoveryCode: true };

describe('TerminalPromptPort', () => {
  it('answers the first prompt with the preset code without asking, and asks the terminal after that', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    output.on('data', (c: Buffer) => (shown += c.toString()));
    const port = new TerminalPromptPort(new Terminal({ input, output }), { presetCode: '123456' });
    const signal = new AbortController().signal;
    expect(await port.promptTotp(prompt, signal)).toBe('123456');
    expect(shown).toBe('');

    const asked = port.promptTotp({ ...prompt, attempt: 2, error: 'wrong code' }, signal);
    input.write('654321\n');
    expect(await asked).toBe('654321');
    expect(shown).toContain('wrong code');
  });
});
