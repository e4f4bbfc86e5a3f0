/** `login` keeps an admin session for later commands; `logout` ends it on the controller and forgets it. */
import { resolve } from 'node:path';
import { UsageError } from '../agent/cli/cli-args.js';
import { EXIT, type ExitCode } from '../agent/cli/cli-errors.js';
import { clientFor, controllerUrlFor, endSession, signIn, type AdminContext } from './admin-session.js';
import type { KeptSessionRecord } from './kept-session.js';
import { json } from './output.js';
import { adminCommand } from '../agent/cli/command-name.js';

export async function loginCommand(ctx: AdminContext): Promise<ExitCode> {
  const { connection } = ctx.args;
  if (connection.credentialStore === 'memory')
    throw new UsageError('the memory credential store keeps nothing; login needs keyring or file');
  const previous = await ctx.kept.load();
  const controllerUrl = controllerUrlFor(ctx, previous);
  const client = await clientFor(ctx, controllerUrl);
  try {
    const { username } = await signIn(ctx, client);
    const token = client.sessionToken!;
    if (previous) await endPrevious(ctx, previous);
    await ctx.kept.save({
      controllerUrl,
      token,
      username,
      ...(connection.ca ? { caFile: resolve(connection.ca) } : {}),
      ...(connection.controllerFingerprint
        ? { controllerFingerprint: connection.controllerFingerprint }
        : {}),
    });
    if (ctx.args.json) ctx.print(json({ controllerUrl, username }));
    else
      ctx.print(
        `Signed in to ${controllerUrl} as ${username}. Later commands use this session until ` +
          `${adminCommand('logout')}, or until it is idle longer than the controller allows.`,
      );
    return EXIT.ok;
  } finally {
    client.close();
  }
}

/** A new login replaces the kept session: the old one ends rather than lingering on the controller. */
async function endPrevious(ctx: AdminContext, previous: KeptSessionRecord): Promise<void> {
  const client = await clientFor(ctx, previous.controllerUrl, previous).catch(() => undefined);
  if (!client) return;
  client.setSessionToken(previous.token);
  await endSession(client);
  client.close();
}

export async function logoutCommand(ctx: AdminContext): Promise<ExitCode> {
  const kept = await ctx.kept.load();
  if (!kept) {
    ctx.print(ctx.args.json ? json({ signedOut: false }) : 'No admin session is kept.');
    return EXIT.ok;
  }
  const client = await clientFor(ctx, kept.controllerUrl, kept);
  client.setSessionToken(kept.token);
  const failure = await endSession(client);
  client.close();
  await ctx.kept.clear();
  if (ctx.args.json) {
    ctx.print(json({ signedOut: true, controllerUrl: kept.controllerUrl, controllerTold: !failure }));
    return EXIT.ok;
  }
  ctx.print(
    failure
      ? `Forgot the session for ${kept.controllerUrl}; the controller could not be told (${failure.message}), so it ends there when idle.`
      : `Signed out of ${kept.controllerUrl}; the kept session is ended and forgotten.`,
  );
  return EXIT.ok;
}
