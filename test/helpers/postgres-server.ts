/**
 * A real PostgreSQL server of the tests' own: a fresh cluster in a temp folder, reachable only from this
 * machine (127.0.0.1 and a socket inside the folder) without a password, and gone again after stop().
 * No vitest in here: bench code starts servers with it too.
 */
import { randomBytes } from 'node:crypto';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { findPostgresBinaries, type PostgresBinaries } from '../../scripts/postgres-binaries.js';
import {
  SUPERUSER,
  initCluster,
  launchServer,
  letProcessExitWithout,
  serverAccount,
  stopServer,
  type Account,
  type RunningServer,
} from './postgres-server-process.js';

/** The database a suite shares; createDatabase() makes others. */
const SHARED_DATABASE = 'postern';
const READY_TIMEOUT_MS = 30_000;
const READY_POLL_MS = 50;
/** Bounds each readiness probe: on a port taken by something else, a connection can hang without an answer. */
const PROBE_TIMEOUT_MS = 1_000;
/** Another process can take the free port we found before the server binds it; try a fresh one. */
const PORT_ATTEMPTS = 3;

export interface PostgresServerOptions {
  /** A fixed port; by default a free one is picked. */
  port?: number;
  /** fsync on, as a real server runs (the bench); off by default, the tests need no crash safety */
  durable?: boolean;
}

export interface PostgresServer {
  /** The shared `postern` database. */
  readonly url: string;
  /** The maintenance database `postgres`, for administering the others. */
  readonly adminUrl: string;
  readonly port: number;
  /** the postmaster's process id (its backends are its children) */
  readonly pid: number;
  /** The temp folder holding the cluster and the server's socket; stop() removes it. */
  readonly folder: string;
  /** A new empty database, uniquely named unless a name is given; resolves to its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Fast shutdown (sessions cut, no waiting for clients), then the folder removed. Safe to call twice. */
  stop(): Promise<void>;
}

function databaseUrl(port: number, database: string): string {
  return `postgres://${SUPERUSER}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function withClient<T>(
  url: string,
  use: (client: pg.Client) => Promise<T>,
  config: pg.ClientConfig = {},
): Promise<T> {
  const client = new pg.Client({ ...config, connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Resolves once our server answers a query; rejects, with its output, when it ends or takes too long. */
async function waitUntilReady(server: RunningServer, url: string, dataFolder: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastProblem = '';
  for (;;) {
    if (server.hasExited())
      throw new Error(`PostgreSQL ended while starting (${server.exitDescription()}):\n${server.output}`);
    try {
      const { rows } = await withClient(url, (client) => client.query('SHOW data_directory'), {
        connectionTimeoutMillis: PROBE_TIMEOUT_MS,
        query_timeout: PROBE_TIMEOUT_MS,
      });
      // Another test run's server can win the port we picked; then ours is about to fail to bind.
      if (rows[0]?.data_directory === dataFolder) return;
      lastProblem = `the port is answered by another PostgreSQL server (${rows[0]?.data_directory})`;
    } catch (error) {
      lastProblem = (error as Error).message;
    }
    if (Date.now() > deadline)
      throw new Error(
        `PostgreSQL did not accept connections within ${READY_TIMEOUT_MS / 1000} s ` +
          `(last: ${lastProblem}):\n${server.output}`,
      );
    await delay(READY_POLL_MS);
  }
}

function lostThePortRace(server: RunningServer): boolean {
  return /could not bind|Address already in use|could not create any TCP\/IP sockets/i.test(
    String(server.output),
  );
}

async function startServerOnFreePort(
  binaries: PostgresBinaries,
  folder: string,
  dataFolder: string,
  account: Account | undefined,
  fixedPort: number | undefined,
  durable: boolean,
  onLaunch: (server: RunningServer) => void,
): Promise<{ server: RunningServer; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = fixedPort ?? (await freePort());
    const server = launchServer(binaries.postgres, folder, dataFolder, port, account, durable);
    onLaunch(server);
    try {
      await waitUntilReady(server, databaseUrl(port, SUPERUSER), dataFolder);
      return { server, port };
    } catch (error) {
      if (!server.hasExited()) {
        server.child.kill('SIGQUIT');
        await server.exited;
      }
      if (fixedPort !== undefined || attempt >= PORT_ATTEMPTS || !lostThePortRace(server)) throw error;
    }
  }
}

export async function startPostgres(options: PostgresServerOptions = {}): Promise<PostgresServer> {
  const binaries = findPostgresBinaries();
  if (!binaries)
    throw new Error(
      'PostgreSQL server programs (initdb, postgres) not found on PATH or in a Debian version folder; ' +
        'install the postgresql package (npm test does so as root)',
    );
  const account = serverAccount();
  const folder = mkdtempSync(join(tmpdir(), 'postern-postgres-'));
  const dataFolder = join(folder, 'data');
  const removeFolder = () => rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
  let server: RunningServer | undefined;
  const killOnExit = () => {
    // Exit handlers cannot wait: immediate shutdown, and the folder removed on a best-effort basis.
    server?.child.kill('SIGQUIT');
    try {
      removeFolder();
    } catch {
      // A backend still writing as it dies; the folder is in the temp folder, which the system clears.
    }
  };
  process.on('exit', killOnExit);
  try {
    // The server's user must own the folder it creates the cluster and its socket in.
    if (account) chownSync(folder, account.uid, account.gid);
    await initCluster(binaries.initdb, dataFolder, account);
    // Known to the exit hook from launch on, so even an exit while it starts takes it down.
    const started = await startServerOnFreePort(
      binaries,
      folder,
      dataFolder,
      account,
      options.port,
      options.durable === true,
      (s) => {
        server = s;
      },
    );
    letProcessExitWithout(started.server.child);
    const port = started.port;
    const adminUrl = databaseUrl(port, SUPERUSER);
    let created = 0;
    const createDatabase = async (name?: string): Promise<string> => {
      // The counter keeps this server's names apart; the random tail keeps them apart from names given by hand.
      const database = name ?? `postern_test_${++created}_${randomBytes(3).toString('hex')}`;
      await withClient(adminUrl, (client) =>
        client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`),
      );
      return databaseUrl(port, database);
    };
    const url = await createDatabase(SHARED_DATABASE);
    let stopping: Promise<void> | undefined;
    const runningServer = started.server;
    return {
      url,
      adminUrl,
      port,
      pid: started.server.child.pid!,
      folder,
      createDatabase,
      stop: () =>
        (stopping ??= (async () => {
          await stopServer(runningServer);
          process.off('exit', killOnExit);
          removeFolder();
        })()),
    };
  } catch (error) {
    if (server) await stopServer(server);
    process.off('exit', killOnExit);
    removeFolder();
    throw error;
  }
}
