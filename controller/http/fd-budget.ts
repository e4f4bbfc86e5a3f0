/**
 * The process's file descriptors as a budget, so that no kind of client can take the last ones: event streams
 * stop first, then requests that are not essential, and a reserve stays for `/version`, sign-in and the
 * management API (an administrator can always sign in and act). The limit is the process's RLIMIT_NOFILE
 * (the soft limit, read from /proc/self/limits); the open count is /proc/self/fd. Where /proc is missing
 * (macOS, Windows) the budget never refuses: the per-session and per-identity caps still hold there.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** Re-read the open count at most this often; connections accepted meanwhile are added to the last count. */
const RECOUNT_MS = 100;

/**
 * How many descriptors stay free from each kind of use, as a share of the limit with a floor: with the usual
 * 1,024, event streams stop at 768 open and other non-essential requests at 896, which leaves 128 for sign-in,
 * `/version` and the management API (a sign-in needs one socket; the store, logs and router link a few more).
 */
const ESSENTIAL_RESERVE = (limit: number) => Math.max(32, Math.floor(limit / 8));

export type FdUse = 'event-stream' | 'request';

/** The soft `Max open files` of this process, or null where it cannot be read. */
export function openFileLimit(limits = '/proc/self/limits'): number | null {
  try {
    const line = readFileSync(limits, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    const n = Number(soft);
    return Number.isSafeInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

export class FdBudget {
  private counted = 0;
  private countedAt = -Infinity;
  private acceptedSince = 0;

  constructor(
    /** null: not measurable here, never refuses */
    readonly limit: number | null = openFileLimit(),
    private readonly countOpen: () => number | undefined = countOpenDescriptors,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A connection was accepted: it counts until the next recount sees it. */
  noteAccepted(): void {
    this.acceptedSince++;
  }

  /** Whether a new use of this kind keeps the reserve of the kinds above it. */
  allows(use: FdUse): boolean {
    if (this.limit === null) return true;
    const reserve = ESSENTIAL_RESERVE(this.limit);
    const ceiling = use === 'event-stream' ? this.limit - 2 * reserve : this.limit - reserve;
    return this.open() < ceiling;
  }

  /** Open descriptors now (recounted at most every RECOUNT_MS, plus the connections accepted since). */
  open(): number {
    const at = this.now();
    if (at - this.countedAt >= RECOUNT_MS) {
      this.counted = this.countOpen() ?? 0;
      this.countedAt = at;
      this.acceptedSince = 0;
    }
    return this.counted + this.acceptedSince;
  }
}

function countOpenDescriptors(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return undefined;
  }
}
