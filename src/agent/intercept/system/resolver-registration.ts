/**
 * Telling the system to ask the agent's resolver, two ways chosen at run time:
 * - systemd-resolved, when it manages /etc/resolv.conf (its stub) and `resolvectl` is there: the resolver
 *   becomes `postern0`'s DNS server for the intercepted domains only (`~corp`), so every other name never
 *   reaches the agent. Its upstreams (for names inside those domains that are not intercepted) are the servers
 *   resolved lists in /run/systemd/resolve/resolv.conf.
 * - otherwise /etc/resolv.conf itself: saved byte for byte in the state folder, then rewritten to name the
 *   agent's resolver; the servers it named are the resolver's upstreams. Written in place, never renamed over:
 *   the file may be a bind mount (`ip netns exec`) or a symlink another program manages.
 */
import { lstat, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LINK_NAME } from './intercept-plan.js';
import { nameservers, posternResolvConf, writtenByPostern } from './resolv-conf.js';
import { CommandFailed, type SystemCommand, runChecked } from './system-command.js';

export const RESOLV_CONF = '/etc/resolv.conf';
/** Where systemd-resolved lists the servers it forwards to (not its stub). */
export const RESOLVED_UPSTREAMS = '/run/systemd/resolve/resolv.conf';
/** The saved original, in the agent's state folder. */
export const SAVED_RESOLV_CONF = 'resolv.conf.original';
const RESOLVED_STUB = /systemd\/resolve\/stub-resolv\.conf$/;

export type ResolverBackend = 'resolved' | 'resolv.conf';

export interface ResolverPaths {
  resolvConf: string;
  resolvedUpstreams: string;
  stateDir: string;
}

export interface ResolverRegistration {
  backend: ResolverBackend;
  /** where the agent's resolver forwards the names it does not intercept */
  upstreams: string[];
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

async function commandExists(run: SystemCommand, file: string): Promise<boolean> {
  try {
    await run(file, ['--version']);
    return true;
  } catch (error) {
    if (error instanceof CommandFailed) return false;
    throw error;
  }
}

/** resolved when resolv.conf is its stub (the symlink, or a copy naming 127.0.0.53) and resolvectl is installed. */
export async function chooseBackend(run: SystemCommand, resolvConf: string): Promise<ResolverBackend> {
  let stub = false;
  try {
    if ((await lstat(resolvConf)).isSymbolicLink()) stub = RESOLVED_STUB.test(await readlink(resolvConf));
  } catch {
    // no resolv.conf at all: nothing says resolved is in charge
  }
  if (!stub) stub = nameservers((await readText(resolvConf)) ?? '').includes('127.0.0.53');
  return stub && (await commandExists(run, 'resolvectl')) ? 'resolved' : 'resolv.conf';
}

/** The resolvectl command lines that route `domains` to the resolver on `postern0` (none: nothing routed). */
export function resolvedCommands(resolverAddress: string, domains: readonly string[]): string[][] {
  if (domains.length === 0) return [['revert', LINK_NAME]];
  return [
    ['dns', LINK_NAME, resolverAddress],
    ['domain', LINK_NAME, ...domains.map((d) => `~${d}`)],
    // Only the routing domains: never the link other names go to.
    ['default-route', LINK_NAME, 'false'],
  ];
}

/**
 * Where the resolver will forward what it does not intercept, read before anything changes (so the caller can
 * keep those servers out of the redirect): resolved's upstreams, or resolv.conf's servers (the saved original's
 * when the current file is Postern's).
 */
export async function resolverUpstreams(
  backend: ResolverBackend,
  paths: ResolverPaths,
  resolverAddress: string,
): Promise<string[]> {
  let text: string;
  if (backend === 'resolved') text = (await readText(paths.resolvedUpstreams)) ?? '';
  else {
    text = (await readText(paths.resolvConf)) ?? '';
    if (writtenByPostern(text)) text = (await readText(join(paths.stateDir, SAVED_RESOLV_CONF))) ?? '';
  }
  return nameservers(text).filter((a) => a !== resolverAddress);
}

async function registerResolved(
  run: SystemCommand,
  paths: ResolverPaths,
  resolverAddress: string,
  domains: readonly string[],
): Promise<ResolverRegistration> {
  const upstreams = await resolverUpstreams('resolved', paths, resolverAddress);
  for (const args of resolvedCommands(resolverAddress, domains)) await runChecked(run, 'resolvectl', args);
  return { backend: 'resolved', upstreams };
}

async function registerResolvConf(
  paths: ResolverPaths,
  resolverAddress: string,
): Promise<ResolverRegistration> {
  const savedPath = join(paths.stateDir, SAVED_RESOLV_CONF);
  const current = await readFile(paths.resolvConf);
  let original: Buffer;
  if (writtenByPostern(current.toString('utf8'))) {
    // Ours already (a re-apply): the saved original stays the one to put back.
    const saved = await readFile(savedPath).catch(() => undefined);
    if (!saved)
      throw new Error(
        `${paths.resolvConf} was written by Postern but its original is not in ${savedPath}; ` +
          'put the system resolver back in it (for example "nameserver <your DNS server>") and start again',
      );
    original = saved;
  } else {
    original = current;
    await writeFile(savedPath, original, { mode: 0o600, flush: true });
  }
  const upstreams = nameservers(original.toString('utf8')).filter((a) => a !== resolverAddress);
  await writeFile(
    paths.resolvConf,
    posternResolvConf(original.toString('utf8'), resolverAddress, savedPath, paths.resolvConf),
  );
  return { backend: 'resolv.conf', upstreams };
}

export async function registerResolver(
  run: SystemCommand,
  backend: ResolverBackend,
  paths: ResolverPaths,
  resolverAddress: string,
  domains: readonly string[],
): Promise<ResolverRegistration> {
  return backend === 'resolved'
    ? registerResolved(run, paths, resolverAddress, domains)
    : registerResolvConf(paths, resolverAddress);
}

/**
 * Puts resolv.conf back from the saved copy, if there is one. Only over a file Postern wrote (or an empty one: a
 * write cut short): one that changed since (a DHCP client, a person) is newer than the copy and stays. Returns what happened, in words, or undefined.
 */
export async function restoreResolvConf(
  paths: Pick<ResolverPaths, 'resolvConf' | 'stateDir'>,
): Promise<string | undefined> {
  const savedPath = join(paths.stateDir, SAVED_RESOLV_CONF);
  const saved = await readFile(savedPath).catch(() => undefined);
  if (!saved) return undefined;
  const current = await readText(paths.resolvConf);
  let outcome: string;
  // Empty is a write of Postern's cut short: writing a file in place truncates it first, so a kill -9 between
  // the truncation and the write (here, or registering) leaves it empty; the saved copy is the only original.
  if (current === undefined || current === '' || writtenByPostern(current)) {
    await writeFile(paths.resolvConf, saved);
    outcome = `${paths.resolvConf} restored`;
  } else {
    outcome = `${paths.resolvConf} left as is (changed since Postern wrote it)`;
  }
  await rm(savedPath, { force: true });
  return outcome;
}

/** Drops postern0's settings in systemd-resolved; false when there were none to drop (no link, no resolvectl). */
export async function revertResolved(run: SystemCommand): Promise<boolean> {
  try {
    return (await run('resolvectl', ['revert', LINK_NAME])).code === 0;
  } catch {
    return false;
  }
}
