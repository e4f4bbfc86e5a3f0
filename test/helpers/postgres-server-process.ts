/**
 * The processes behind the tests' PostgreSQL server (postgres-server.ts): who runs them, initdb creating the
 * cluster, the server itself, and its shutdown. PostgreSQL refuses to run as root, hence the account.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

/** The superuser initdb creates; trust authentication lets it in without a password. */
export const SUPERUSER = 'postgres';
const STOP_TIMEOUT_MS = 10_000;
/** A server that fails to start says why in its last lines of output; keep that much for the error. */
const OUTPUT_TAIL_CHARS = 4_000;

export interface Account {
  readonly uid: number;
  readonly gid: number;
}

function accountIds(name: string): Account | undefined {
  const id = (flag: string) =>
    spawnSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const uid = id('-u');
  const gid = id('-g');
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * Who runs initdb and the server: this process's user, except as root, which PostgreSQL refuses. Then it is
 * the `postgres` system user Debian's package creates, else `nobody`. Node switches user in the child itself
 * (spawn's uid/gid), so the server is our direct child and signals reach the postmaster unchanged; runuser
 * would stand between and turn the fast-shutdown SIGINT into a SIGTERM, which waits for every client.
 */
export function serverAccount(): Account | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    const account = accountIds(name);
    if (account) return account;
  }
  throw new Error(
    'PostgreSQL will not run as root, and there is neither a postgres nor a nobody user to run it as',
  );
}

/** The last few thousand characters a child wrote, for error messages. */
export class OutputTail {
  private text = '';
  collect(child: ChildProcess): void {
    child.stdout?.on('data', (chunk: Buffer) => this.add(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => this.add(chunk.toString()));
  }
  add(text: string): void {
    this.text = (this.text + text).slice(-OUTPUT_TAIL_CHARS);
  }
  toString(): string {
    return this.text.trim() || '(no output)';
  }
}

function start(command: string, args: string[], account: Account | undefined): ChildProcess {
  return spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...account });
}

function exitDescription(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `signal ${signal}` : `exit ${code}`;
}

export async function initCluster(
  initdb: string,
  dataFolder: string,
  account: Account | undefined,
): Promise<void> {
  const child = start(
    initdb,
    // --no-sync: a throw-away cluster need not reach the disk, and initdb is several times faster without it.
    ['-D', dataFolder, '-U', SUPERUSER, '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync'],
    account,
  );
  const output = new OutputTail();
  output.collect(child);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c, s) => resolve([c, s]));
  });
  if (code !== 0) throw new Error(`initdb failed (${exitDescription(code, signal)}):\n${output}`);
}

/** A server process and the means to tell whether, and how, it has ended. */
export interface RunningServer {
  readonly child: ChildProcess;
  readonly output: OutputTail;
  readonly exited: Promise<void>;
  hasExited(): boolean;
  exitDescription(): string;
}

export function launchServer(
  postgres: string,
  folder: string,
  dataFolder: string,
  port: number,
  account: Account | undefined,
  durable = false,
): RunningServer {
  const child = start(
    postgres,
    [
      '-D',
      dataFolder,
      '-c',
      `port=${port}`,
      '-c',
      'listen_addresses=127.0.0.1',
      // Inside our folder, not the system's socket folder: it may be missing or not ours to write.
      '-c',
      `unix_socket_directories=${folder}`,
      // The cluster is thrown away with the folder; nothing it writes needs to survive a crash (unless asked:
      // the bench compares with SQLite's durable commits).
      '-c',
      `fsync=${durable ? 'on' : 'off'}`,
      // Suites open a pool per store and run in parallel; the default 100 is close enough to hit.
      '-c',
      'max_connections=200',
    ],
    account,
  );
  const output = new OutputTail();
  output.collect(child);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    // Only when it could not be started at all: no exit event follows, so the reason joins the output.
    child.once('error', (error) => {
      output.add(`\n${error.message}`);
      resolve();
    });
  });
  let ended = false;
  void exited.then(() => (ended = true));
  return {
    child,
    output,
    exited,
    hasExited: () => ended || child.exitCode !== null || child.signalCode !== null,
    exitDescription: () => exitDescription(child.exitCode, child.signalCode),
  };
}

/** The server no longer holds the test process open: a forgotten stop() is settled by the exit hook. */
export function letProcessExitWithout(child: ChildProcess): void {
  child.unref();
  for (const stream of [child.stdout, child.stderr]) (stream as Socket | null)?.unref();
}

export async function stopServer(server: RunningServer): Promise<void> {
  if (server.hasExited()) return;
  // Back on the event loop's books, so the process stays up until the server has gone.
  server.child.ref();
  // SIGINT is PostgreSQL's fast shutdown: open sessions are cut rather than waited for.
  server.child.kill('SIGINT');
  const timedOut = await Promise.race([server.exited.then(() => false), delay(STOP_TIMEOUT_MS, true)]);
  if (timedOut) {
    // Immediate shutdown: the postmaster takes its backends down with it.
    server.child.kill('SIGQUIT');
    await server.exited;
  }
}
