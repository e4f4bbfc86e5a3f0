/**
 * `enroll --token FILE` and `unenroll`. Enrolling checks the token before anything secret leaves (see
 * enrollment/device-enrollment.ts), then either makes this device a key and gets it a certificate to sign in
 * with (`ott`), or sets the account's password (`updb`); either way it signs in at once, as `login` would.
 * `unenroll` deletes the device identity; `logout` keeps it.
 */
import { DeviceEnrollment } from '../../enrollment/device-enrollment.js';
import type { AgentStatus } from '../../agent.js';
import { CliError, EXIT, explainError, type ExitCode } from '../cli-errors.js';
import {
  createAgent,
  deviceIdentities,
  ONE_SHOT_RETRIES,
  readCaBundle,
  type CliContext,
} from '../cli-context.js';
import { readEnrollmentToken } from '../enrollment-token-input.js';
import { agentCommand } from '../command-name.js';

export async function enrollCommand(ctx: CliContext): Promise<ExitCode> {
  const token = await readEnrollmentToken(ctx.args.token ?? ctx.args.words[0], ctx.terminal);
  const enrollment = await DeviceEnrollment.check(token, {
    controllerUrl: ctx.args.controller,
    ca: await readCaBundle(ctx.args.ca),
    fingerprint: ctx.args.controllerFingerprint,
    allowPlainHttp: ctx.args.insecure,
    retry: { maxRetries: ONE_SHOT_RETRIES },
    logger: ctx.logger,
  });
  try {
    return enrollment.summary.method === 'ott'
      ? await enrollWithCertificate(ctx, enrollment)
      : await enrollWithPassword(ctx, enrollment);
  } finally {
    enrollment.close();
  }
}

async function enrollWithCertificate(ctx: CliContext, enrollment: DeviceEnrollment): Promise<ExitCode> {
  const devices = deviceIdentities(ctx);
  const existing = await devices.load();
  if (existing)
    throw new CliError(
      `this device is already enrolled with ${existing.controllerUrl}; run ${agentCommand('unenroll')} first`,
    );
  if (ctx.args.credentialStore === 'memory')
    ctx.terminal.warn(
      "the memory credential store keeps nothing: this device's key is lost when this command ends and the token is spent; use the keychain or --credential-store file to keep it",
    );
  const identity = await enrollment.withCertificate(devices);
  const signedIn = await rememberAndSignIn(ctx, enrollment, undefined, (agent) =>
    agent.loginWithCertificate(),
  );
  const name = signedIn.identityName ?? identity.identityId;
  ctx.terminal.print(
    `Enrolled ${name} with ${identity.controllerUrl}; signed in with this device's certificate.`,
  );
  return afterSignIn(ctx, signedIn);
}

async function enrollWithPassword(ctx: CliContext, enrollment: DeviceEnrollment): Promise<ExitCode> {
  const username =
    enrollment.summary.username ??
    ctx.args.username ??
    (await askRequired(ctx, 'Username (from your administrator): '));
  const password = ctx.env.POSTERN_PASSWORD ?? (await newPassword(ctx));
  await enrollment.withPassword(password, username);
  const signedIn = await rememberAndSignIn(ctx, enrollment, username, (agent) =>
    agent.login({ username, password }),
  );
  ctx.terminal.print(
    `Enrolled ${username} with ${enrollment.summary.controllerUrl}; signed in with the new password.`,
  );
  return afterSignIn(ctx, signedIn);
}

/**
 * Remembers the controller (and the fingerprint it was pinned by) as `login` does, then signs in. A failure
 * here comes after the token was spent, so it says the enrollment itself worked.
 */
async function rememberAndSignIn(
  ctx: CliContext,
  enrollment: DeviceEnrollment,
  username: string | undefined,
  signIn: (agent: Awaited<ReturnType<typeof createAgent>>) => Promise<AgentStatus>,
): Promise<AgentStatus> {
  const { controllerUrl, pinnedFingerprint } = enrollment.summary;
  const settings = await ctx.settingsFile.update({
    controllerUrl,
    ...(username ? { username } : {}),
    // Replaces a pin of another controller; none when this one is trusted through a CA.
    controllerFingerprint: ctx.args.controllerFingerprint ?? pinnedFingerprint,
  });
  const signInCtx: CliContext = { ...ctx, settings, args: { ...ctx.args, controller: controllerUrl } };
  try {
    const agent = await createAgent(signInCtx);
    try {
      return await signIn(agent);
    } finally {
      await agent.stop();
    }
  } catch (error) {
    const { message, exitCode } = explainError(error);
    throw new CliError(
      `enrolled with ${controllerUrl}, but signing in afterwards failed: ${message}`,
      exitCode,
    );
  }
}

function afterSignIn(ctx: CliContext, status: AgentStatus): ExitCode {
  if (ctx.args.credentialStore === 'memory')
    ctx.terminal.print('The memory credential store keeps nothing: later commands must sign in again.');
  if (status.state === 'needs-enrollment')
    ctx.terminal.print(
      `This account must set up an authenticator app before it can reach services: run ${agentCommand('mfa setup')}.`,
    );
  if (status.state === 'needs-totp')
    throw new CliError('signed in, but no authenticator code was entered', EXIT.mfa);
  return EXIT.ok;
}

async function askRequired(ctx: CliContext, question: string): Promise<string> {
  const answer = (await ctx.terminal.ask(question))?.trim();
  if (!answer) throw new CliError('no username given', EXIT.usage);
  return answer;
}

/** Asked twice, hidden; nothing is sent unless both agree. */
async function newPassword(ctx: CliContext): Promise<string> {
  const first = await ctx.terminal.ask('New password: ', { hidden: true });
  if (!first) throw new CliError('no password given', EXIT.usage);
  const second = await ctx.terminal.ask('Repeat the new password: ', { hidden: true });
  if (second !== first) throw new CliError('the two passwords differ; nothing was sent', EXIT.usage);
  return first;
}

export async function unenrollCommand(ctx: CliContext): Promise<ExitCode> {
  const devices = deviceIdentities(ctx);
  const identity = await devices.load();
  if (!identity && !(await devices.hasKey())) {
    ctx.terminal.print('This device has no enrolled identity.');
    return EXIT.ok;
  }
  if (identity) {
    // End the session the certificate made while the agent still has it; a stored password login stays.
    const agent = await createAgent({
      ...ctx,
      args: { ...ctx.args, controller: identity.controllerUrl },
    }).catch(() => undefined);
    await agent?.logout(false).catch(() => undefined);
    await agent?.stop();
  }
  await devices.delete();
  ctx.terminal.print(
    identity
      ? `Deleted this device's identity with ${identity.controllerUrl} (its key and certificate); enrolling again needs a new token.`
      : "Deleted this device's unfinished enrollment (a key without a certificate).",
  );
  return EXIT.ok;
}
