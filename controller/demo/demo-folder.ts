/**
 * The demo's data folder (its controller, and the demo agent's own state): a fresh one under the system's
 * temp folder, so trying the demo never writes to the user's real Postern folders, and removed when the
 * process exits (normal exit, `quit`, SIGINT/SIGTERM; best effort after a crash). `--keep` keeps it, and a
 * folder the user names (`--data-dir`, e.g. one kept earlier) is theirs: used as it is and never removed.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const DEMO_FOLDER_PREFIX = 'postern-demo-';
/** How `npm start` hands the desktop app the demo folder it made (and removes once the app has exited). */
export const DEMO_DIR_ENV = 'POSTERN_DEMO_DIR';

export interface DemoFolder {
  readonly path: string;
  /** false: removed when the process exits. */
  readonly kept: boolean;
  /** The start-up line: where the data is and what becomes of it. */
  readonly description: string;
  /** Removes the folder now unless it is kept; safe to call more than once. */
  remove(): void;
}

export interface DemoFolderOptions {
  /** Keep the fresh folder when the process exits. */
  keep?: boolean;
  /** The user's own folder (created if missing), used instead of a fresh one and never removed. */
  dir?: string;
}

function describe(path: string, fresh: boolean, keep: boolean): string {
  if (!fresh) return `demo data: ${path} (your folder: kept on exit)`;
  if (keep) return `demo data: ${path} (kept on exit; --data-dir ${path} runs the demo on it again)`;
  return `demo data: ${path} (deleted on exit; --keep keeps it)`;
}

/** Makes (or takes) the demo folder and arranges for a throwaway one to go when the process exits. */
export function openDemoFolder(options: DemoFolderOptions = {}): DemoFolder {
  const fresh = options.dir === undefined;
  const path = fresh ? mkdtempSync(join(tmpdir(), DEMO_FOLDER_PREFIX)) : resolve(options.dir!);
  if (!fresh) mkdirSync(path, { recursive: true, mode: 0o700 });
  const kept = !fresh || options.keep === true;
  let removed = false;
  const folder: DemoFolder = {
    path,
    kept,
    description: describe(path, fresh, options.keep === true),
    remove() {
      if (kept || removed) return;
      removed = true;
      rmSync(path, { recursive: true, force: true, maxRetries: 3 });
    },
  };
  // 'exit' runs on every way out but a signal's default action or a hard crash: a clean return, a
  // process.exit(), an uncaught error. Only synchronous work is possible there, hence rmSync.
  process.once('exit', () => {
    folder.remove();
    if (fresh && kept && existsSync(path)) console.log(`demo data kept in ${path}`);
  });
  return folder;
}

/**
 * SIGINT, SIGTERM and SIGHUP (the terminal closed) end a Node process without 'exit' unless someone
 * listens. While another listener is there (the agent console, which stops the agent and returns), it owns
 * the signal and the exit hook removes the folder afterwards; otherwise (still starting, or a second Ctrl-C
 * while stopping) the folder goes now and the process ends as the signal would have ended it.
 */
export function removeOnSignals(folder: DemoFolder): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (process.listenerCount(signal) > 1) return;
      folder.remove();
      process.exit(128 + constants.signals[signal]);
    });
  }
}
