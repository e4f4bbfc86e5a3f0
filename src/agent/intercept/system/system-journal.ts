/**
 * The record of what intercept mode is about to change, written to the agent's state folder BEFORE the change
 * (so a kill -9 at any point leaves a journal that covers it) and read by the next start, which undoes it.
 * Mode 0600 like the rest of the state folder; replaced by rename so a crash mid-write never leaves half a file.
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ResolverBackend } from './resolver-registration.js';

export const JOURNAL_FILE = 'intercept-journal.json';

export interface SystemJournal {
  version: 1;
  /** the process that made the changes (for a person reading it) */
  pid: number;
  writtenAt: string;
  link: string;
  /** `inet postern` */
  nftTable: string;
  routes: string[];
  /** host routes kept for the controller, routers and DNS servers (`proto 147`) */
  pinned: string[];
  resolver: { backend: ResolverBackend; resolvConf: string };
}

export async function writeJournal(stateDir: string, journal: SystemJournal): Promise<void> {
  const path = join(stateDir, JOURNAL_FILE);
  const partial = `${path}.${process.pid}.tmp`;
  await writeFile(partial, `${JSON.stringify(journal, null, 2)}\n`, { mode: 0o600, flush: true });
  await rename(partial, path);
}

/** The journal, or undefined when there is none or it cannot be read (restore then goes by the well-known names). */
export async function readJournal(stateDir: string): Promise<SystemJournal | undefined> {
  try {
    const journal = JSON.parse(await readFile(join(stateDir, JOURNAL_FILE), 'utf8')) as SystemJournal;
    return journal?.version === 1 ? journal : undefined;
  } catch {
    return undefined;
  }
}

export async function removeJournal(stateDir: string): Promise<void> {
  await rm(join(stateDir, JOURNAL_FILE), { force: true });
}
