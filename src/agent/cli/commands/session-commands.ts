/** `login`, `logout` and `status`. */
import { resolve } from 'node:path';
import { isControllerError } from '../../../controller-client/controller-error.js';
import { NotSignedInError } from '../../session/session-manager.js';
import { CliError, EXIT, type ExitCode } from '../cli-errors.js';
import { controllerUrlOf, createAgent, deviceIdentities, signIn, type CliContext } from '../cli-context.js';
import { statusLines } from '../format.js';
import { carrierLines, carriersFileBeside, readCarriers } from '../../tunnel/carrier-state.js';
import { agentCommand } from '../command-name.js';
import { serviceSocketPath } from '../../service/service-client.js';
import { serviceMode } from '../../service/service-mode.js';
import { ssoLoginCommand } from './sso-login-command.js';
import { carriersOfService } from '../../service/service-carriers.js';

async function askRequired(ctx: CliContext, question: string, hidden = false): Promise<string> {
  const answer = (await ctx.terminal.ask(question, { hidden }))?.trim();
  if (!answer) throw new CliError(`no ${hidden ? 'password' : 'answer'} given`, EXIT.usage);
  return answer;
}

export async function loginCommand(ctx: CliContext): Promise<ExitCode> {
  if (ctx.args.sso) return ssoLoginCommand(ctx);
  const controllerUrl = controllerUrlOf(ctx);
  const username =
    ctx.args.username ?? ctx.args.words[0] ?? ctx.settings.username ?? (await askRequired(ctx, 'Username: '));
  const password = ctx.env.POSTERN_PASSWORD ?? (await askRequired(ctx, 'Password: ', true));
  const agent = await createAgent(ctx);
  try {
    const status = await agent.login({ username, password });
    const pinned = ctx.args.controllerFingerprint;
    // How to trust the controller is remembered with it, the CA file as the fingerprint: later commands need
    // it as much as this one did.
    await ctx.settingsFile.update({
      controllerUrl,
      username,
      ...(pinned ? { controllerFingerprint: pinned } : {}),
      ...(ctx.args.ca ? { caFile: resolve(ctx.args.ca) } : {}),
    });
    const t = ctx.terminal;
    t.print(`Signed in to ${controllerUrl} as ${username}.`);
    if (ctx.args.credentialStore === 'memory') {
      t.print(
        'The memory credential store keeps nothing: later commands sign in again with POSTERN_PASSWORD.',
      );
    }
    if (status.state === 'needs-enrollment') {
      t.print(
        `This account must set up an authenticator app before it can reach services: run ${agentCommand('mfa setup')}.`,
      );
    }
    if (status.state === 'needs-totp')
      throw new CliError('signed in, but no authenticator code was entered', EXIT.mfa);
    return EXIT.ok;
  } finally {
    await agent.stop();
  }
}

export async function logoutCommand(ctx: CliContext): Promise<ExitCode> {
  const agent = await createAgent(ctx);
  try {
    // Before the API session ends: the signer list is asked of the controller.
    const endSession = await agent.provider.signOut();
    await agent.logout(true);
    // An enrolled device stays enrolled: its certificate signs in again at the next command.
    const enrolled = (await deviceIdentities(ctx).load(agent.client.baseUrl)) !== undefined;
    ctx.terminal.print(
      `Signed out; the stored password and session were removed.${enrolled ? ` This device's certificate is kept (${agentCommand('unenroll')} deletes it).` : ''}`,
    );
    if (endSession) ctx.terminal.print(`To sign out at the identity provider too, open:\n${endSession}`);
    return EXIT.ok;
  } finally {
    await agent.stop();
  }
}

/** Reports signed-out and unreachable as states (with their exit codes), not as errors. */
export async function statusCommand(ctx: CliContext): Promise<ExitCode> {
  const agent = await createAgent(ctx);
  // Asked while signing in: whether the Postern service answers (intercept mode) or not (proxy, and why).
  const mode = serviceMode(serviceSocketPath(ctx.env));
  let exitCode: ExitCode = EXIT.ok;
  try {
    try {
      await signIn(agent, ctx);
    } catch (error) {
      if (error instanceof NotSignedInError || isControllerError(error, 'INVALID_AUTH')) exitCode = EXIT.auth;
      else if (isControllerError(error) && error.isUnreachable) exitCode = EXIT.unreachable;
      else throw error;
    }
    // A session resumed from its token alone (no stored password) knows no username: the one remembered at
    // login is it. A certificate session has none.
    const current = agent.status();
    const username =
      current.signInMethod === 'certificate' ? undefined : (current.username ?? ctx.settings.username);
    const status = { ...current, username };
    const services = agent.services();
    // Written by a running `run` (carrier-state.ts), else told by the Postern service; undefined when neither runs.
    const carriers =
      readCarriers(carriersFileBeside(ctx.settingsFile.path)) ??
      (await carriersOfService(serviceSocketPath(ctx.env), await mode));
    if (ctx.args.json) {
      const count = (access: string) => services.filter((s) => s.access === access).length;
      const summary = {
        total: services.length,
        granted: count('granted'),
        warned: count('warned'),
        blocked: count('blocked'),
        mfaNeeded: count('mfa-needed'),
        checking: count('checking'),
      };
      // Each refused service with the reference the user quotes (null when the controller gave none).
      const refused = services
        .filter((s) => s.access === 'blocked' || s.access === 'mfa-needed')
        .map((s) => ({ service: s.name, access: s.access, reference: s.reference }));
      const { mode: name, why } = await mode;
      ctx.terminal.json({
        ...status,
        services: summary,
        refused,
        mode: name,
        modeReason: why,
        // service name → the router carrying it, null while not connected yet; null when no agent runs
        routers: carriers ? Object.fromEntries(carriers.map((c) => [c.service, c.router])) : null,
      });
    } else {
      ctx.terminal.print(statusLines(status, services));
      ctx.terminal.print(carrierLines(carriers));
      const { mode: name, why } = await mode;
      ctx.terminal.print(`mode: ${name} (${why})`);
    }
    return exitCode;
  } finally {
    await agent.stop();
  }
}
