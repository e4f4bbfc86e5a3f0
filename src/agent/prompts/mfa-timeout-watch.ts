/**
 * Prompts ahead of MFA timeouts: when an MFA check that currently passes will time out (or its grace
 * period end) within the threshold, the user is asked for a code before access is lost, once per deadline.
 * A timer set for exactly that moment does the waiting; service lists that arrive meanwhile re-plan it.
 */
import type { ServiceDirectory, ServiceSnapshot } from '../posture/service-directory.js';
import { systemClock, type Clock, type TimerHandle } from '../../common/clock.js';
import type { MfaPrompter } from './mfa-prompter.js';
import type { PromptService } from './prompt-port.js';

export const DEFAULT_TIMEOUT_WARNING_MS = 60_000;
/** Deadlines recomputed from whole seconds drift; within this they are the same deadline. */
const SAME_DEADLINE_MS = 5_000;

export interface MfaTimeoutWatchOptions {
  directory: ServiceDirectory;
  prompter: MfaPrompter;
  /** Whether prompting makes sense now (session active, authenticator enrolled). */
  enabled: () => boolean;
  clock?: Clock;
  thresholdMs?: number;
}

interface Deadline {
  service: PromptService;
  at: number;
}

/** Every passing MFA query with a running clock, as an absolute deadline. */
function deadlinesOf(snapshot: ServiceSnapshot): Deadline[] {
  const deadlines: Deadline[] = [];
  for (const service of snapshot.services) {
    for (const policy of service.postureQueries) {
      for (const q of policy.postureQueries) {
        if (q.queryType !== 'MFA' || !q.isPassing || q.timeoutRemaining <= 0) continue;
        deadlines.push({
          service: { id: service.id, name: service.name },
          at: snapshot.fetchedAt + q.timeoutRemaining * 1000,
        });
      }
    }
  }
  return deadlines;
}

export class MfaTimeoutWatch {
  private unsubscribe: (() => void) | undefined;
  private timer: TimerHandle | undefined;
  private promptedFor: number | undefined;
  private readonly clock: Clock;
  private readonly thresholdMs: number;

  constructor(private readonly options: MfaTimeoutWatchOptions) {
    this.clock = options.clock ?? systemClock;
    this.thresholdMs = options.thresholdMs ?? DEFAULT_TIMEOUT_WARNING_MS;
  }

  start(): void {
    this.unsubscribe ??= this.options.directory.updates.on((snapshot) => this.plan(snapshot));
    const current = this.options.directory.snapshot;
    if (current) this.plan(current);
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.timer?.cancel();
    this.timer = undefined;
  }

  private plan(snapshot: ServiceSnapshot): void {
    this.timer?.cancel();
    this.timer = undefined;
    const deadlines = deadlinesOf(snapshot);
    if (deadlines.length === 0) return;
    const first = Math.min(...deadlines.map((d) => d.at));
    const wait = first - this.thresholdMs - this.clock.now();
    if (wait > 0) {
      // Re-read the list at that moment: a code entered meanwhile has moved the deadline.
      this.timer = this.clock.setTimeout(() => {
        this.timer = undefined;
        this.options.directory.refresh().catch(() => this.plan(snapshot));
      }, wait);
      return;
    }
    if (!this.options.enabled()) return;
    if (this.promptedFor !== undefined && Math.abs(this.promptedFor - first) < SAME_DEADLINE_MS) return;
    this.promptedFor = first;
    const soon = deadlines.filter((d) => d.at - first < this.thresholdMs);
    const services = [...new Map(soon.map((d) => [d.service.id, d.service])).values()];
    void this.options.prompter.request({ reason: 'timeout', services, deadline: first });
  }
}
