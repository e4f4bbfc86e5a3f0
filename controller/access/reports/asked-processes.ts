/**
 * The binaries some posture check asks about. A device's process reports are kept only for these: a signed-in
 * user could otherwise store any number of made-up paths (each report read back on every evaluation), and
 * nothing but a check ever reads them. Windows paths compare without case, as the checks do.
 *
 * Worked out once per catalogue (a new one after every posture check change), not per report: a device
 * reports often, checks change rarely.
 */
import type { Store } from '../../store/repository.js';
import { catalogueOf, type Catalogue } from '../../catalogue/catalogue.js';
import type { PostureCheck, ProcessRule } from '../../posture-model.js';

const WINDOWS = ['Windows', 'WindowsServer'];

/** Whether any check names a binary. */
export interface AskedPaths {
  has(path: string): boolean;
}

const worked = new WeakMap<Catalogue, AskedPaths>();

/** The binaries the store's posture checks ask about now. */
export async function askedProcesses(store: Store): Promise<AskedPaths> {
  const catalogue = await catalogueOf(store);
  let asked = worked.get(catalogue);
  if (!asked) {
    asked = askedBy(catalogue.postureChecks.all);
    worked.set(catalogue, asked);
  }
  return asked;
}

function askedBy(checks: readonly PostureCheck[]): AskedPaths {
  const exact = new Set<string>();
  const folded = new Set<string>();
  for (const rule of checks.flatMap(rulesOf)) {
    if (WINDOWS.includes(rule.osType)) folded.add(rule.path.toLowerCase());
    else exact.add(rule.path);
  }
  return { has: (path) => exact.has(path) || folded.has(path.toLowerCase()) };
}

function rulesOf(check: PostureCheck): ProcessRule[] {
  if (check.typeId === 'PROCESS') return [check.process];
  if (check.typeId === 'PROCESS_MULTI') return check.processes;
  return [];
}
