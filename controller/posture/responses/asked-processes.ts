/**
 * The binaries some posture check asks about. A device's process reports are kept only for these: a signed-in
 * user could otherwise store any number of made-up paths (each report read back on every evaluation), and
 * nothing but a check ever reads them. Windows paths compare without case, as the checks do.
 *
 * Worked out once per catalogue change (`policy.changed`, published after every posture check write), not per
 * report: a device reports often, checks change rarely.
 */
import type { ControllerContext } from '../../context.js';
import type { PostureCheck, ProcessRule } from '../types.js';

const WINDOWS = ['Windows', 'WindowsServer'];

export class AskedProcesses {
  private exact: Set<string> | null = null;
  private folded: Set<string> | null = null;
  private readonly forget = () => {
    this.exact = this.folded = null;
  };

  constructor(private readonly ctx: ControllerContext) {
    ctx.events.on('policy.changed', this.forget);
  }

  /** Whether any check names this binary. */
  has(path: string): boolean {
    if (!this.exact || !this.folded) this.load();
    return this.exact!.has(path) || this.folded!.has(path.toLowerCase());
  }

  close(): void {
    this.ctx.events.off('policy.changed', this.forget);
  }

  private load(): void {
    const exact = new Set<string>();
    const folded = new Set<string>();
    const checks = this.ctx.store.postureChecks.list({ limit: Number.MAX_SAFE_INTEGER, offset: 0 }).items;
    for (const rule of checks.flatMap(rulesOf)) {
      if (WINDOWS.includes(rule.osType)) folded.add(rule.path.toLowerCase());
      else exact.add(rule.path);
    }
    this.exact = exact;
    this.folded = folded;
  }
}

function rulesOf(check: PostureCheck): ProcessRule[] {
  if (check.typeId === 'PROCESS') return [check.process];
  if (check.typeId === 'PROCESS_MULTI') return check.processes;
  return [];
}
