/** `mfa status|enroll|verify|remove|codes`: the user's own authenticator app set-up. */
import type { Agent } from '../../agent.js';
import { qrForTerminal } from '../../mfa/qr-code.js';
import { UsageError } from '../cli-args.js';
import { ERROR_CODES } from '../../../api/envelopes.js';
import { isControllerError } from '../../../controller-client/controller-error.js';
import { looksLikeCode, NOT_A_CODE_MESSAGE } from '../../prompts/code-shape.js';
import { CliError, EXIT, explainError, type ExitCode } from '../cli-errors.js';
import { createAgent, signIn, type CliContext } from '../cli-context.js';
import type { Terminal } from '../terminal.js';
import { agentCommand } from '../command-name.js';

/** Recovery codes four to a line, so they are easy to copy onto paper. */
function printCodes(terminal: Terminal, codes: readonly string[]): void {
  for (let i = 0; i < codes.length; i += 4) terminal.print(`  ${codes.slice(i, i + 4).join('   ')}`);
}

/**
 * A code given on the command line, else POSTERN_TOTP_CODE, else `question` asked on the terminal (or read
 * from piped stdin). On the command line a code lands in the shell's history, where a recovery code stays
 * good until used: that still works, with a warning that says what to do instead.
 */
function givenCode(ctx: CliContext): string | undefined {
  const onCommandLine = ctx.args.words[1];
  if (onCommandLine !== undefined)
    ctx.terminal.warn(
      'a code on the command line stays in your shell history; leave it out to be asked, pipe it on stdin or set POSTERN_TOTP_CODE',
    );
  return onCommandLine ?? (ctx.env.POSTERN_TOTP_CODE || undefined);
}

async function codeFrom(ctx: CliContext, question: string): Promise<string> {
  const code = (givenCode(ctx) ?? (await ctx.terminal.ask(question)))?.replace(/\s+/g, '');
  if (!code) throw new CliError('no code given', EXIT.usage);
  return code;
}

/**
 * Shows the QR code, the secret and the recovery codes, then asks for a code to verify. Shared with the
 * `run` console (`enroll`). Resolves whether MFA ended up verified.
 */
export async function enrollInteractively(agent: Agent, terminal: Terminal, code?: string): Promise<boolean> {
  const enrollment = await agent.mfa.enroll();
  await agent.refreshMfaState();
  terminal.print('Scan this QR code with your authenticator app:');
  terminal.print(await qrForTerminal(enrollment.provisioningUrl));
  terminal.print(`Or enter the secret by hand: ${enrollment.secret}`);
  terminal.print(`(${enrollment.provisioningUrl})`);
  terminal.print();
  terminal.print('Recovery codes: keep them somewhere safe; each works once if you lose the app.');
  printCodes(terminal, enrollment.recoveryCodes);
  terminal.print();
  const ask = async (question: string) => (await terminal.ask(question))?.replace(/\s+/g, '') ?? null;
  let answer = code ?? (await ask('Code from the app to finish (empty to finish later): '));
  for (;;) {
    if (!answer) {
      terminal.print(`Not verified yet: finish with ${agentCommand('mfa verify')}.`);
      return false;
    }
    try {
      if (!looksLikeCode(answer)) throw new CliError(NOT_A_CODE_MESSAGE, EXIT.usage);
      await agent.verifyMfa(answer);
      break;
    } catch (error) {
      // A mistyped code asks again (the secret and recovery codes stay on the screen); a code given on the
      // command line or in the environment, or stdin that ended, leaves the refusal as the answer.
      const refused = error instanceof CliError || isControllerError(error, ERROR_CODES.mfaInvalidToken);
      if (code !== undefined || !refused) throw error;
      terminal.print(explainError(error).message);
      const again = await ask('Code from the app (empty to finish later): ');
      if (again === null) throw error;
      answer = again;
    }
  }
  terminal.print(
    `MFA is set up. Services that ask for a code are reachable now: ${agentCommand('services')} lists them.`,
  );
  return true;
}

async function removeMfa(ctx: CliContext, agent: Agent): Promise<void> {
  const status = await agent.mfa.status();
  if (status.state === 'not-enrolled') {
    ctx.terminal.print('MFA is not set up; nothing to remove.');
    return;
  }
  if (status.state === 'unverified') {
    await agent.mfa.remove();
    ctx.terminal.print('The unfinished MFA setup was abandoned.');
  } else {
    await agent.mfa.remove(await codeFrom(ctx, 'Authenticator or recovery code: '));
    ctx.terminal.print('MFA removed; services that require it are no longer reachable.');
  }
  await agent.refreshMfaState();
}

async function recoveryCodes(ctx: CliContext, agent: Agent): Promise<void> {
  const code = await codeFrom(ctx, 'Authenticator code: ');
  // The controller would take a recovery code here and use it up: to read the codes, the app's code is enough.
  if (!/^\d{6}$/.test(code))
    throw new CliError(
      'showing or replacing recovery codes needs the 6-digit code from your authenticator app (a recovery code would be used up)',
      EXIT.usage,
    );
  if (ctx.args.regenerate) {
    const fresh = await agent.mfa.regenerateRecoveryCodes(code);
    if (!fresh) {
      ctx.terminal.print(
        `New recovery codes were generated; show them with ${agentCommand('mfa codes')} and the next code.`,
      );
      return;
    }
    ctx.terminal.print('New recovery codes (the old ones no longer work):');
    printCodes(ctx.terminal, fresh);
    return;
  }
  printCodes(ctx.terminal, await agent.mfa.recoveryCodes(code));
}

export async function mfaCommand(ctx: CliContext): Promise<ExitCode> {
  const sub = ctx.args.words[0] ?? 'status';
  const agent = await createAgent(ctx);
  try {
    await signIn(agent, ctx);
    switch (sub) {
      case 'status': {
        const status = await agent.mfa.status();
        // What it is, then the command that comes next from there.
        const words = {
          enrolled: `set up (${status.remainingRecoveryCodes ?? 'some'} recovery codes left). ${agentCommand('mfa codes')} shows them; ${agentCommand('mfa remove')} removes MFA.`,
          unverified: `setup started but not verified. Finish it with ${agentCommand('mfa verify')}, or start over with ${agentCommand('mfa remove')}.`,
          'not-enrolled': `not set up. Set up an authenticator app with ${agentCommand('mfa setup')}.`,
        };
        const { state, remainingRecoveryCodes } = status;
        if (ctx.args.json) ctx.terminal.json({ state, remainingRecoveryCodes });
        else ctx.terminal.print(`MFA: ${words[state]}`);
        break;
      }
      // `enroll` was this command's first name (OpenZiti says "MFA enrollment"); kept for scripts. Postern
      // says "enroll" only for a device's enrollment with a token.
      case 'setup':
      case 'enroll':
        if (ctx.args.json) {
          ctx.terminal.json(await agent.mfa.enroll());
          break;
        }
        // Finishing later is a choice, not a failure.
        await enrollInteractively(agent, ctx.terminal, givenCode(ctx));
        break;
      case 'verify':
        await agent.verifyMfa(await codeFrom(ctx, 'Code from your authenticator app: '));
        ctx.terminal.print(
          `MFA is set up. Services that ask for a code are reachable now: ${agentCommand('services')} lists them.`,
        );
        break;
      case 'remove':
        await removeMfa(ctx, agent);
        break;
      case 'codes':
        await recoveryCodes(ctx, agent);
        break;
      default:
        throw new UsageError(`unknown mfa command '${sub}'`);
    }
    return EXIT.ok;
  } finally {
    await agent.stop();
  }
}
