/**
 * Intercept mode's changes to a Linux system, made and undone as one piece: the `postern0` device and its
 * routes, the `inet postern` nftables table, and the resolver registration. Apply journals first, then changes;
 * restore undoes what the journal says and, whatever it says (or when it is gone), removes the well-known
 * names, so a start after a kill -9 always begins from a clean system.
 */
import { mkdir } from 'node:fs/promises';
import { LINK_NAME, NFT_TABLE, type SystemPlan, withBypass } from './intercept-plan.js';
import { NFT_DELETE_SCRIPT, nftScript } from './nft-script.js';
import { createLink, deleteLink, linkExists, type RouteSync, syncRoutes } from './linux-routes.js';
import {
  RESOLVED_UPSTREAMS,
  RESOLV_CONF,
  type ResolverBackend,
  type ResolverRegistration,
  chooseBackend,
  registerResolver,
  resolverUpstreams,
  restoreResolvConf,
  revertResolved,
} from './resolver-registration.js';
import { removePinnedRoutes, syncPinnedRoutes } from './bypass-routes.js';
import { CommandFailed, type SystemCommand, runChecked, runSystemCommand } from './system-command.js';
import { readJournal, removeJournal, writeJournal } from './system-journal.js';

export { checkPrivileges, type PrivilegeCheck } from './linux-privileges.js';

export interface SystemOptions {
  /** the agent's state folder: the journal and the saved resolv.conf live here */
  stateDir: string;
  /** injectable for tests; the real commands otherwise */
  run?: SystemCommand;
  resolvConf?: string;
  resolvedUpstreams?: string;
}

export interface ApplyOptions extends SystemOptions {
  /** the intercept listener's port (on 127.0.0.1 and ::1) that redirected connections go to */
  listenPort: number;
  /** forced instead of detected (tests, or a user's setting) */
  backend?: ResolverBackend;
}

export interface AppliedSystem {
  routes: RouteSync;
  /** bypass addresses given a host route of their own (inside an intercepted prefix) */
  pinned: string[];
  resolver: ResolverRegistration;
}

const TABLE = `inet ${NFT_TABLE}`;

/**
 * Makes the system match the plan. Safe to call again with a new plan (services changed): routes are synced,
 * the table is replaced in one nft transaction and the resolver registration rewritten. On a failure part-way
 * the caller restores (the journal already covers everything that may have been changed).
 */
export async function applyInterceptSystem(
  requested: SystemPlan,
  options: ApplyOptions,
): Promise<AppliedSystem> {
  const run = options.run ?? runSystemCommand;
  const resolvConf = options.resolvConf ?? RESOLV_CONF;
  await mkdir(options.stateDir, { recursive: true, mode: 0o700 });
  const backend = options.backend ?? (await chooseBackend(run, resolvConf));
  const paths = {
    resolvConf,
    resolvedUpstreams: options.resolvedUpstreams ?? RESOLVED_UPSTREAMS,
    stateDir: options.stateDir,
  };
  // The upstream DNS servers are never redirected (and keep their way out if a prefix covers them).
  const plan = withBypass(requested, await resolverUpstreams(backend, paths, requested.resolver.address));
  const script = nftScript(plan, options.listenPort);
  await writeJournal(options.stateDir, {
    version: 1,
    pid: process.pid,
    writtenAt: new Date().toISOString(),
    link: LINK_NAME,
    nftTable: TABLE,
    routes: plan.routes,
    pinned: plan.pinned,
    resolver: { backend, resolvConf },
  });
  // Before the routes: the agent's own connections never take the way through postern0, even for a moment.
  const pinned = await syncPinnedRoutes(run, plan.pinned);
  await createLink(run);
  const routes = await syncRoutes(run, plan.routes);
  await runChecked(run, 'nft', ['-f', '-'], script);
  const resolver = await registerResolver(run, backend, paths, plan.resolver.address, plan.resolver.domains);
  return { routes, pinned, resolver };
}

export interface RestoreReport {
  /** what was there and is gone, in words (empty: the system was already clean) */
  removed: string[];
  /** what could not be undone and why; the journal stays so the next start tries again */
  failed: string[];
}

async function tableExists(run: SystemCommand): Promise<boolean> {
  try {
    return (await run('nft', ['list', 'table', ...TABLE.split(' ')])).code === 0;
  } catch {
    return false;
  }
}

/**
 * Undoes intercept mode's changes: resolver first (names stop going to a resolver that is about to vanish),
 * then the rules, then the device (its routes and address go with it). Never throws; a missing piece is not
 * a failure.
 */
export async function restoreSystem(stateDirOrOptions: string | SystemOptions): Promise<RestoreReport> {
  const options = typeof stateDirOrOptions === 'string' ? { stateDir: stateDirOrOptions } : stateDirOrOptions;
  const run = options.run ?? runSystemCommand;
  const journal = await readJournal(options.stateDir);
  const report: RestoreReport = { removed: [], failed: [] };
  const step = async (what: string, undo: () => Promise<string | boolean | undefined>) => {
    try {
      const outcome = await undo();
      if (typeof outcome === 'string') report.removed.push(outcome);
      else if (outcome) report.removed.push(what);
    } catch (error) {
      // A command that is not installed made nothing to remove (no nft: no table of ours).
      if (error instanceof CommandFailed && error.outcome === undefined) return;
      report.failed.push(`${what}: ${(error as Error).message}`);
    }
  };
  const resolvConf = journal?.resolver.resolvConf ?? options.resolvConf ?? RESOLV_CONF;
  await step('resolv.conf', () => restoreResolvConf({ resolvConf, stateDir: options.stateDir }));
  if (journal?.resolver.backend === 'resolved')
    await step(
      `systemd-resolved settings of ${LINK_NAME}`,
      async () => (await linkExists(run)) && revertResolved(run),
    );
  await step(`nft table ${TABLE}`, async () => {
    if (!(await tableExists(run))) return false;
    await runChecked(run, 'nft', ['-f', '-'], NFT_DELETE_SCRIPT);
    return true;
  });
  await step(`link ${LINK_NAME} and its routes`, () => deleteLink(run));
  await step('pinned routes', async () => {
    const count = await removePinnedRoutes(run);
    return count > 0 ? `${count} pinned route(s) to the controller/routers` : undefined;
  });
  if (report.failed.length === 0) await removeJournal(options.stateDir);
  return report;
}
