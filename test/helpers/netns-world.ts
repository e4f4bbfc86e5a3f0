/**
 * A world of network namespaces for intercept mode's tests (Linux, root): programs in a `client` namespace
 * that has no route to the service network, a service network reached only through the router, and a
 * system resolver of the test's own.
 *
 *   client ns  10.200.1.2/30 ── veth ── 10.200.1.1/30  root ns: controller + embedded router (bound to
 *   (agent, curl; resolv.conf → 10.200.1.1)            10.200.1.1), test DNS server on 10.200.1.1:53
 *                                                        10.9.0.1/24 ── veth ── 10.9.0.5/24  svc ns:
 *                                                        HTTPS for wiki.corp on :443, TCP echo on :5432
 *
 * The client namespace has only its on-link /30 (no default route), so whether the root namespace
 * forwards is irrelevant: a packet to 10.9.0.0/24 never leaves the client. The service `wiki` (intercept.v1
 * wiki.corp:443, host.v1 10.9.0.5:443) is granted to an identity enrolled with a one-time token whose files
 * (certificate, key, remembered controller) live in `agentDir`, for agents started in the client namespace.
 *
 * Namespaces and veth ends carry the test process's pid in their names (`pnw<pid>-<n>…`): `stop()` removes
 * them, a process 'exit' hook removes them if the test never got that far, and `sweepStaleNamespaces()`
 * (run by every start) removes those of processes that no longer run (a crashed or killed earlier run).
 * The addresses are fixed, so worlds take turns through a lock (another test file's world, or the same
 * test on the other store's project, waits for the first to finish).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Api, MGMT } from './api.js';
import { SELF_SIGNED_CERT_FILE } from '../../controller/composition/tls-identity.js';
import { ADMIN_PASSWORD, spawnController, tempDir } from './controller.js';
import { create } from './data-plane-world.js';
import { watchAgent, type AgentProcess } from './reliability-agent-process.js';
import { hasOpenssl, issueServerCertificate } from './test-ca.js';
import { startTestDnsServer, type TestDnsServer } from './test-dns-server.js';

export const CLIENT_ADDRESS = '10.200.1.2';
/** the root namespace's end of the client's link: controller, router and DNS listen here */
export const ROOT_CLIENT_SIDE = '10.200.1.1';
export const SVC_ADDRESS = '10.9.0.5';
export const ROOT_SVC_SIDE = '10.9.0.1';
export const SVC_NETWORK = '10.9.0.0/24';
export const WIKI_NAME = 'wiki.corp';
export const WIKI_BODY = 'postern netns wiki: hello through the router\n';
export const ECHO_PORT = 5432;
/** what the test DNS server answers (A); every other name is NXDOMAIN */
export const OTHER_NAME = 'other.test';
export const OTHER_ADDRESS = '10.77.0.1';

const ROOT = join(import.meta.dirname, '..', '..');
const AGENT_CLI = join(ROOT, 'src', 'agent', 'cli.ts');
const SERVICE_SERVERS = join(ROOT, 'test', 'fixtures', 'netns', 'service-servers.ts');
const PREFIX = 'pnw';
const NOTE_SUFFIX = '.netns-world';
const LOCK_SOCKET = '\0postern-netns-world';

/** Why this machine cannot build the world (the suite then skips with it), or null when it can. */
export function netnsUnavailable(): string | null {
  if (process.platform !== 'linux') return 'network namespaces are Linux only';
  if (process.getuid?.() !== 0) return 'needs root (ip netns, veth, nftables)';
  for (const [tool, args] of [
    ['ip', ['netns', 'list']],
    ['nft', ['--version']],
    ['curl', ['--version']],
    ['getent', ['--version']],
  ] as const) {
    try {
      execFileSync(tool, args, { stdio: 'ignore' });
    } catch {
      return `'${tool}' is missing or fails (${tool} ${args.join(' ')})`;
    }
  }
  if (!hasOpenssl()) return "'openssl' is missing (the test CA is made with it)";
  return null;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface NetnsWorld {
  /** the namespaces' names (for `ip netns exec`) */
  names: { client: string; svc: string };
  /** the test CA's certificate (PEM file), what curl trusts with --cacert */
  caFile: string;
  controllerUrl: string;
  /** the controller's self-signed certificate (PEM), trusted by `admin` */
  controllerCert: string;
  admin: Api;
  /** the enrolled identity's config dir: agent.json, credentials.json (key, 0600), device-certificate.json */
  agentDir: string;
  identity: { id: string; name: string };
  /** the service `wiki` (intercept.v1 wiki.corp:443 → host.v1 10.9.0.5:443), granted to the identity */
  wiki: { serviceId: string; name: string };
  /** the role attribute the identity holds: a service with it is granted (see publishService) */
  grantedAttribute: string;
  /** the Dial policy granting those services (a test adds posture checks to it) */
  policyId: string;
  /** the client namespace's resolver (listening on 10.200.1.1:53 in the root namespace) */
  dns: TestDnsServer;
  /** runs a command in the client namespace to its end */
  runInClient(command: string, args: string[], timeoutMs?: number): Promise<RunResult>;
  /** starts a command in the client namespace; it is killed by stop() if still running */
  spawnInClient(command: string, args: string[]): ChildProcess;
  /** `postern-agent run` in the client namespace as the enrolled identity, SOCKS5 on any free port */
  startAgent(extraArgs?: string[]): AgentProcess;
  /** a further service granted to the identity, with the given intercept.v1 and host.v1 data */
  publishService(
    name: string,
    intercept: Record<string, unknown>,
    host: Record<string, unknown>,
  ): Promise<string>;
  stop(): Promise<void>;
}

/** Builds the world; call `stop()` in afterAll. Waits (up to `lockWaitMs`) while another world exists. */
export async function startNetnsWorld(lockWaitMs = 600_000): Promise<NetnsWorld> {
  const unavailable = netnsUnavailable();
  if (unavailable) throw new Error(`the netns world cannot be built here: ${unavailable}`);
  await acquireLock(lockWaitMs);
  const teardown = new Teardown();
  try {
    return await build(teardown);
  } catch (error) {
    await teardown.run();
    throw error;
  }
}

let worlds = 0;

/** A dead world's folder, and the processes (the controller) whose command line names it. */
function removeLeftovers(note: string): void {
  const dir = readFileSync(note, 'utf8').trim();
  if (dir.startsWith(join(tmpdir(), 'postern-netns-'))) {
    for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir)) process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone meanwhile, or not ours to read
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
  rmSync(note, { force: true });
}

async function build(teardown: Teardown): Promise<NetnsWorld> {
  sweepStaleNamespaces();
  const tag = `${PREFIX}${process.pid}-${++worlds}`;
  const names = { client: `${tag}-cli`, svc: `${tag}-svc` };
  const rootEnds = { client: `${tag}c`, svc: `${tag}s` };
  const dir = tempDir('postern-netns-');
  teardown.dirs.push(dir);
  // Where a sweep finds this world's folder, and the root-namespace processes started on it, if this
  // process dies before tearing down (the namespaces' own processes die with the namespaces).
  const note = join(tmpdir(), `${tag}${NOTE_SUFFIX}`);
  writeFileSync(note, dir);
  teardown.dirs.push(note);
  teardown.namespaces.push(names.client, names.svc);
  teardown.links.push(rootEnds.client, rootEnds.svc);

  // The service network: svc namespace ↔ root.
  link(names.svc, rootEnds.svc, `${ROOT_SVC_SIDE}/24`, `${SVC_ADDRESS}/24`);
  // The client: only its /30 to the root namespace, no default route.
  link(names.client, rootEnds.client, `${ROOT_CLIENT_SIDE}/30`, `${CLIENT_ADDRESS}/30`);
  // `ip netns exec` binds /etc/netns/<name>/resolv.conf over /etc/resolv.conf for what it runs.
  const etc = join('/etc/netns', names.client);
  teardown.dirs.push(etc);
  mkdirSync(etc, { recursive: true });
  writeFileSync(join(etc, 'resolv.conf'), `nameserver ${ROOT_CLIENT_SIDE}\n`);
  const dns = await startTestDnsServer(ROOT_CLIENT_SIDE, { [OTHER_NAME]: OTHER_ADDRESS });
  teardown.closers.push(() => dns.close());

  const certDir = join(dir, 'ca');
  mkdirSync(certDir);
  const ca = issueServerCertificate(certDir, [WIKI_NAME]);
  const servers = spawn(
    'ip',
    [
      'netns',
      'exec',
      names.svc,
      process.execPath,
      '--import',
      'tsx',
      SERVICE_SERVERS,
      SVC_ADDRESS,
      '443',
      String(ECHO_PORT),
      ca.certFile,
      ca.keyFile,
      WIKI_BODY,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  teardown.track(servers);
  await printed(servers, /^ready$/m, 'the svc namespace servers');

  const controllerDir = join(dir, 'controller');
  const controller = await spawnController(
    ['--data-dir', controllerDir, '--host', ROOT_CLIENT_SIDE, '--port', '0', '--log-level', 'warn'],
    { POSTERN_ADMIN_PASSWORD: ADMIN_PASSWORD },
  );
  teardown.track(controller.child, true);
  const controllerCert = readFileSync(join(controllerDir, SELF_SIGNED_CERT_FILE), 'utf8');
  const admin = new Api(controller.url, undefined, controllerCert);
  const login = await admin.login('admin', ADMIN_PASSWORD);
  if (login.status !== 200) throw new Error(`admin login: ${login.status} ${JSON.stringify(login.body)}`);

  const grantedAttribute = `${tag}-granted`;
  const policyId = await create(admin, 'service-policies', {
    name: `${tag}-dial`,
    type: 'Dial',
    semantic: 'AnyOf',
    identityRoles: [`#${tag}-users`],
    serviceRoles: [`#${grantedAttribute}`],
  });
  const publishService = async (
    name: string,
    intercept: Record<string, unknown>,
    host: Record<string, unknown>,
  ) =>
    create(admin, 'services', {
      name,
      roleAttributes: [grantedAttribute],
      configs: [
        await create(admin, 'configs', {
          name: `${name}-intercept`,
          configTypeId: 'intercept.v1',
          data: intercept,
        }),
        await create(admin, 'configs', { name: `${name}-host`, configTypeId: 'host.v1', data: host }),
      ],
    });
  const wiki = {
    name: 'wiki',
    serviceId: await publishService(
      'wiki',
      { protocols: ['tcp'], addresses: [WIKI_NAME], portRanges: [{ low: 443, high: 443 }] },
      { protocol: 'tcp', address: SVC_ADDRESS, port: 443 },
    ),
  };

  const spawnInClient = (command: string, args: string[]) => {
    const child = spawn('ip', ['netns', 'exec', names.client, command, ...args], {
      cwd: ROOT,
      env: agentEnvironment(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    teardown.track(child);
    return child;
  };
  const runInClient = (command: string, args: string[], timeoutMs = 60_000) =>
    runToEnd(spawnInClient(command, args), timeoutMs);

  const agentDir = join(dir, 'agent');
  mkdirSync(agentDir);
  const identity = await enroll(admin, `${tag}-laptop`, [`${tag}-users`], agentDir, runInClient);
  const agentArgs = ['--import', 'tsx', AGENT_CLI, '--credential-store', 'file', '--config-dir', agentDir];

  const world: NetnsWorld = {
    names,
    caFile: ca.caFile,
    controllerUrl: controller.url,
    controllerCert,
    admin,
    agentDir,
    identity,
    wiki,
    grantedAttribute,
    policyId,
    dns,
    runInClient,
    spawnInClient,
    startAgent: (extraArgs = []) =>
      watchAgent(spawnInClient(process.execPath, [...agentArgs, 'run', '--socks-port', '0', ...extraArgs])),
    publishService,
    stop: () => teardown.run(),
  };
  return world;
}

/** A veth pair: `rootEnd` in the root namespace, `veth0` in a new namespace `ns`, both up and addressed. */
function link(ns: string, rootEnd: string, rootAddress: string, nsAddress: string): void {
  ip('netns', 'add', ns);
  ip('link', 'add', rootEnd, 'type', 'veth', 'peer', 'name', 'veth0', 'netns', ns);
  ip('addr', 'add', rootAddress, 'dev', rootEnd);
  ip('link', 'set', rootEnd, 'up');
  ip('-n', ns, 'link', 'set', 'lo', 'up');
  ip('-n', ns, 'addr', 'add', nsAddress, 'dev', 'veth0');
  ip('-n', ns, 'link', 'set', 'veth0', 'up');
}

function ip(...args: string[]): string {
  try {
    return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`ip ${args.join(' ')} failed: ${stderr.trim() || String(error)}`);
  }
}

/** The agent's environment: none of the test machine's POSTERN_* settings leak into it. */
function agentEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const name of Object.keys(env)) if (name.startsWith('POSTERN_')) delete env[name];
  return env;
}

/** An identity with a one-time token, enrolled by the agent CLI in the client namespace into `agentDir`. */
async function enroll(
  admin: Api,
  name: string,
  roleAttributes: string[],
  agentDir: string,
  runInClient: NetnsWorld['runInClient'],
): Promise<{ id: string; name: string }> {
  const id = await create(admin, 'identities', {
    name,
    type: 'User',
    isAdmin: false,
    roleAttributes,
    enrollment: { ott: true },
  });
  const detail = (await admin.get(`${MGMT}/identities/${id}`)).body.data;
  const tokenFile = join(agentDir, 'enrollment.jwt');
  writeFileSync(tokenFile, `${detail.enrollment.ott.jwt as string}\n`, { mode: 0o600 });
  const run = await runInClient(
    process.execPath,
    [
      '--import',
      'tsx',
      AGENT_CLI,
      '--credential-store',
      'file',
      '--config-dir',
      agentDir,
      'enroll',
      '--token',
      tokenFile,
    ],
    120_000,
  );
  rmSync(tokenFile, { force: true });
  if (run.code !== 0)
    throw new Error(`enroll in the client namespace failed (${run.code}):\n${run.stdout}${run.stderr}`);
  return { id, name };
}

function runToEnd(child: ChildProcess, timeoutMs: number): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin!.end();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function printed(child: ChildProcess, pattern: RegExp, what: string, timeoutMs = 60_000): Promise<void> {
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (pattern.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}:\n${output}`));
    });
  });
}

/**
 * Everything the world made, undone in reverse: processes, servers, veth ends, namespaces, folders, the
 * lock. `run()` is idempotent; the same steps run synchronously from a process 'exit' hook when the test
 * process ends without calling it.
 */
class Teardown {
  readonly children = new Set<ChildProcess>();
  readonly lateChildren = new Set<ChildProcess>();
  readonly closers: (() => Promise<unknown>)[] = [];
  readonly links: string[] = [];
  readonly namespaces: string[] = [];
  readonly dirs: string[] = [];
  private done = false;
  private readonly onExit = () => this.runSync();

  constructor() {
    process.on('exit', this.onExit);
  }

  /** `late`: stopped after the others (the controller, which the agents sign out from as they stop) */
  track(child: ChildProcess, late = false): void {
    (late ? this.lateChildren : this.children).add(child);
    child.once('exit', () => (late ? this.lateChildren : this.children).delete(child));
  }

  async run(): Promise<void> {
    if (this.done) return;
    // Agents and servers first, while the controller still answers their goodbyes; then the rest.
    await Promise.all([...this.children].map(terminate));
    await Promise.all([...this.lateChildren].map(terminate));
    for (const close of this.closers.reverse()) await close().catch(() => undefined);
    this.runSync();
  }

  private runSync(): void {
    if (this.done) return;
    this.done = true;
    process.off('exit', this.onExit);
    for (const child of [...this.children, ...this.lateChildren]) child.kill('SIGKILL');
    removeNetwork(this.namespaces, this.links);
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
    releaseLock();
  }
}

/** SIGTERM, then SIGKILL after 5 s; resolves once the child has exited. */
function terminate(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}

/** Kills what still runs in the namespaces, deletes the root veth ends (synchronously, unlike a namespace's) and the namespaces. */
function removeNetwork(namespaces: readonly string[], links: readonly string[]): void {
  const quiet = (...args: string[]) => {
    try {
      return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      return '';
    }
  };
  for (const ns of namespaces)
    for (const pid of quiet('netns', 'pids', ns).split(/\s+/).filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone already
      }
    }
  for (const l of links) quiet('link', 'del', l);
  for (const ns of namespaces) {
    quiet('netns', 'del', ns);
    rmSync(join('/etc/netns', ns), { recursive: true, force: true });
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const ownerOf = (name: string) => {
  const m = new RegExp(`^${PREFIX}(\\d+)-\\d+`).exec(name);
  return m ? Number(m[1]) : null;
};

/**
 * Removes the namespaces, root veth ends, /etc/netns folders, temp folders and controller processes a
 * world left behind when its process died without tearing down (kill -9, a crash). Only those whose process no longer runs: a live world of another
 * test process is left alone. Returns the names removed.
 */
export function sweepStaleNamespaces(): string[] {
  const stale = (name: string) => {
    const owner = ownerOf(name);
    return owner !== null && !alive(owner);
  };
  const namespaces = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.split(' ')[0]!)
    .filter(stale);
  const links = execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\d+:\s+([^:@\s]+)/.exec(line)?.[1] ?? '')
    .filter(stale);
  let folders: string[] = [];
  try {
    folders = readdirSync('/etc/netns').filter(stale);
  } catch {
    // no /etc/netns at all
  }
  removeNetwork(namespaces, links);
  for (const f of folders) rmSync(join('/etc/netns', f), { recursive: true, force: true });
  const notes = readdirSync(tmpdir()).filter((f) => f.endsWith(NOTE_SUFFIX) && stale(f));
  for (const note of notes) removeLeftovers(join(tmpdir(), note));
  return [...new Set([...namespaces, ...links, ...folders, ...notes])];
}

/**
 * One world at a time on this machine (the addresses are fixed). The lock is a listening socket in the
 * abstract namespace: the kernel frees it when its process ends however it ends, so no stale lock exists.
 */
let lock: Server | null = null;

async function acquireLock(waitMs: number): Promise<void> {
  if (lock) throw new Error('this process already runs a netns world: stop it first');
  const deadline = Date.now() + waitMs;
  for (;;) {
    const server = createServer();
    const taken = await new Promise<boolean>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        error.code === 'EADDRINUSE' ? resolve(false) : reject(error),
      );
      server.listen({ path: LOCK_SOCKET }, () => resolve(true));
    });
    if (taken) {
      lock = server.unref();
      return;
    }
    if (Date.now() > deadline) throw new Error(`another netns world still runs after ${waitMs} ms`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

function releaseLock(): void {
  lock?.close();
  lock = null;
}
