/**
 * Signing the administrator in: password (POSTERN_ADMIN_USERNAME / POSTERN_ADMIN_PASSWORD or asked for, the
 * password hidden), the authenticator code the login may owe (POSTERN_TOTP_CODE or asked for), and a check
 * that the identity is an administrator, so a user's login fails here in words instead of as a 401 later.
 * `connect` gives a command its API: through the kept session when `login` left one for this controller,
 * else through a session of its own that it ends when done, so scripts leave no sessions behind.
 */
import { readFile } from 'node:fs/promises';
import { isTotpQuery, type CurrentApiSession, type CurrentIdentity } from '../api/auth.js';
import { MANAGEMENT_API_PREFIX, PATHS } from '../api/paths.js';
import { normaliseControllerUrl } from '../agent/cli/cli-args.js';
import { CliError, EXIT } from '../agent/cli/cli-errors.js';
import type { Terminal } from '../agent/cli/terminal.js';
import { stderrLogger } from '../common/logger.js';
import { ControllerClient } from '../controller-client/controller-client.js';
import { isControllerError } from '../controller-client/controller-error.js';
import type { AdminArgs } from './admin-args.js';
import type { KeptSession, KeptSessionRecord } from './kept-session.js';
import { ManagementApi } from './management-api.js';

/** What every admin command is given. */
export interface AdminContext {
  args: AdminArgs;
  env: NodeJS.ProcessEnv;
  /** questions go to standard error, so they never mix into output a script reads */
  terminal: Terminal;
  print(text: string): void;
  kept: KeptSession;
}

export interface AdminConnection {
  api: ManagementApi;
  /** ends the command's own session (a kept one stays) and releases the connection */
  close(): Promise<void>;
}

const prefix = MANAGEMENT_API_PREFIX;

/** The controller this command talks to: the one named, else the kept session's. */
export function controllerUrlFor(ctx: AdminContext, kept?: KeptSessionRecord): string {
  const url = ctx.args.connection.controller ?? kept?.controllerUrl;
  if (!url)
    throw new CliError('no controller: pass --controller URL (or set POSTERN_CONTROLLER_URL)', EXIT.usage);
  return normaliseControllerUrl(url);
}

/** A client for the controller, trusting it as told (flags first, then what the kept session was signed in with). */
export async function clientFor(
  ctx: AdminContext,
  controllerUrl: string,
  kept?: KeptSessionRecord,
): Promise<ControllerClient> {
  const { connection } = ctx.args;
  const caFile = connection.ca ?? kept?.caFile;
  let ca: Buffer | undefined;
  if (caFile) {
    try {
      ca = await readFile(caFile);
    } catch (error) {
      throw new CliError(`cannot read the CA bundle ${caFile}: ${(error as Error).message}`);
    }
  }
  return new ControllerClient({
    baseUrl: controllerUrl,
    trust: { ca, fingerprint: connection.controllerFingerprint ?? kept?.controllerFingerprint },
    allowPlainHttp: connection.insecure,
    // One command gives up on an unreachable controller after a few seconds, not a minute.
    retry: { maxRetries: 2 },
    // No silent waits: a slow controller and a long retry wait are said on standard error, as the agent does.
    logger: stderrLogger('warn', undefined, 'postern-admin'),
  });
}

async function ask(ctx: AdminContext, question: string, hidden = false): Promise<string | undefined> {
  return (await ctx.terminal.ask(question, { hidden }))?.trim() || undefined;
}

/** A new API session for the administrator, with its code given if the login owes one. */
export async function signIn(ctx: AdminContext, client: ControllerClient): Promise<{ username: string }> {
  const username = ctx.env.POSTERN_ADMIN_USERNAME || (await ask(ctx, 'Admin username: '));
  const password = username && (ctx.env.POSTERN_ADMIN_PASSWORD || (await ask(ctx, 'Password: ', true)));
  if (!username || !password)
    throw new CliError(
      'not signed in: set POSTERN_ADMIN_USERNAME and POSTERN_ADMIN_PASSWORD, or enter them when asked',
      EXIT.auth,
    );
  const session = await client.request<CurrentApiSession>('POST', PATHS.authenticatePassword, {
    prefix,
    body: { username, password },
    auth: false,
    reauth: false,
    // A sign-in turned away (429: parallel sign-ins of one user, say) was never tried: waiting and trying
    // again is safe, and is what a script running several commands at once needs.
    retry: true,
  });
  client.setSessionToken(session.token);
  try {
    const owed = session.authQueries?.find(isTotpQuery);
    if (owed?.isTotpEnrolled === false)
      throw new CliError(
        `'${username}' must set up an authenticator app before signing in: its auth policy requires one`,
        EXIT.mfa,
      );
    if (owed) await giveCode(ctx, client);
    const me = await client.request<CurrentIdentity>('GET', PATHS.currentIdentity, { prefix, reauth: false });
    if (!me.isAdmin)
      throw new CliError(
        `'${username}' is not an administrator; the management API is for administrators only`,
        EXIT.auth,
      );
  } catch (error) {
    await endSession(client);
    throw error;
  }
  return { username };
}

async function giveCode(ctx: AdminContext, client: ControllerClient): Promise<void> {
  const code =
    ctx.env.POSTERN_TOTP_CODE?.trim() || (await ask(ctx, 'Authenticator code (or a recovery code): '));
  if (!code)
    throw new CliError(
      'this login needs an authenticator code: set POSTERN_TOTP_CODE or enter one when asked',
      EXIT.mfa,
    );
  // Never retried: a one-time code must not be replayed.
  await client.request('POST', PATHS.authenticateMfa, {
    prefix,
    body: { code },
    retry: false,
    reauth: false,
  });
}

/** Ends the client's API session; answers why it could not, if it could not. */
export async function endSession(client: ControllerClient): Promise<Error | undefined> {
  try {
    await client.request('DELETE', PATHS.currentApiSession, { prefix, reauth: false, retry: false });
    return undefined;
  } catch (error) {
    // Already gone is what was wanted.
    if (isControllerError(error) && error.status === 401) return undefined;
    return error as Error;
  } finally {
    client.setSessionToken(undefined);
  }
}

/** Whether the controller still honours the token (it ends sessions idle for its session timeout). */
async function stillValid(client: ControllerClient): Promise<boolean> {
  try {
    await client.request('GET', PATHS.currentApiSession, { prefix, reauth: false });
    return true;
  } catch (error) {
    if (isControllerError(error) && error.status === 401) return false;
    throw error;
  }
}

export async function connect(ctx: AdminContext): Promise<AdminConnection> {
  const named = ctx.args.connection.controller;
  const kept = named ? await ctx.kept.loadFor(normaliseControllerUrl(named)) : await ctx.kept.load();
  const controllerUrl = controllerUrlFor(ctx, kept);
  const client = await clientFor(ctx, controllerUrl, kept);
  const api = new ManagementApi(client);
  if (kept) {
    client.setSessionToken(kept.token);
    if (!(await stillValid(client))) {
      // The administrator chose to keep a session: an expired one is replaced by a new sign-in, kept again.
      await ctx.kept.clear();
      client.setSessionToken(undefined);
      const { username } = await signIn(ctx, client);
      await ctx.kept.save({ ...kept, token: client.sessionToken!, username });
    }
    return { api, close: async () => client.close() };
  }
  await signIn(ctx, client);
  return {
    api,
    close: async () => {
      await endSession(client);
      client.close();
    },
  };
}

/** Runs `work` with the management API, and ends the command's session whatever happens. */
export async function withManagementApi<T>(
  ctx: AdminContext,
  work: (api: ManagementApi) => Promise<T>,
): Promise<T> {
  const connection = await connect(ctx);
  try {
    return await work(connection.api);
  } finally {
    await connection.close();
  }
}
