/**
 * The posture reporter. Each cycle reads the services' posture
 * queries, collects only what they ask, and sends in one bulk request the answers that differ from what the
 * controller last acknowledged. Everything is sent again after a new API session, after the controller was
 * unreachable (it may have restarted) and after a failed send: an answer stays dirty until a 2xx.
 * Cycles run every `intervalMs` and on demand, never two at once.
 */
import type { PostureResponse } from '../../api/posture-responses.js';
import type { ServiceDetail } from '../../api/services.js';
import type { EdgeApi } from '../client/edge-api.js';
import type { PostureCollector } from '../collectors/posture-collector.js';
import type { FactCollector } from '../collectors/facts/fact-collector.js';
import type { SessionStatus } from '../session/session-manager.js';
import { systemClock, type Clock, type TimerHandle } from '../../common/clock.js';
import { Listeners } from '../../common/listeners.js';
import { errorMessage, silentLogger, type AgentLogger } from '../../common/logger.js';
import { collectAnswers } from './collect-answers.js';
import { planCollection, responseKey } from './query-plan.js';
import type { ServiceDirectory } from './service-directory.js';

export const DEFAULT_REPORT_INTERVAL_MS = 20_000;

export interface ReportResult {
  /** What went to the controller in this cycle; empty when nothing changed. */
  sent: PostureResponse[];
  /** Answers collected but not sent because the controller already has them. */
  unchanged: PostureResponse[];
  /** Whether this cycle resent everything. */
  full: boolean;
  /** Set when the cycle did not run because the session cannot report (signed out, owes a code). */
  skipped?: SessionStatus['state'];
  error?: Error;
  services: ServiceDetail[];
}

export interface PostureReporterOptions {
  api: EdgeApi;
  collector: PostureCollector;
  /** the descriptors' facts (disk encryption, firewall, screen lock); checks of those types go unanswered without it */
  facts?: Pick<FactCollector, 'collect'>;
  directory: ServiceDirectory;
  session: () => SessionStatus;
  clock?: Clock;
  intervalMs?: number;
  platform?: NodeJS.Platform;
  logger?: AgentLogger;
}

export class PostureReporter {
  readonly reports = new Listeners<ReportResult>();
  /** key → JSON of the answer the controller acknowledged */
  private readonly acknowledged = new Map<string, string>();
  private fullResend = true;
  /** Bumped by every reason for a full resend, so one arriving mid-cycle is not lost when the cycle ends. */
  private generation = 0;
  private sentSessionId: string | undefined;
  private inFlight: Promise<ReportResult> | undefined;
  private queued: Promise<ReportResult> | undefined;
  private timer: TimerHandle | undefined;
  private started = false;
  private readonly clock: Clock;
  private readonly log: AgentLogger;

  constructor(private readonly options: PostureReporterOptions) {
    this.clock = options.clock ?? systemClock;
    this.log = options.logger ?? silentLogger;
  }

  get intervalMs(): number {
    return this.options.intervalMs ?? DEFAULT_REPORT_INTERVAL_MS;
  }

  /** Starts the periodic cycle with an immediate first one. */
  start(): void {
    if (this.started) return;
    this.started = true;
    void this.runNow();
  }

  stop(): void {
    this.started = false;
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** Waits for the cycle in progress, if any (for a clean shutdown). */
  async idle(): Promise<void> {
    await this.queued;
    await this.inFlight;
  }

  /**
   * A cycle now. If one is running, it may have collected before the caller's reason arose, so exactly one
   * more follows it; every caller meanwhile shares that one.
   */
  runNow(): Promise<ReportResult> {
    if (!this.inFlight) return this.begin();
    this.queued ??= this.inFlight.then(() => {
      this.queued = undefined;
      return this.inFlight ?? this.begin();
    });
    return this.queued;
  }

  /** Whether the controller has this device's answers for the current API session (a cycle completed). */
  reportedThisSession(): boolean {
    const current = this.options.session().apiSessionId;
    return current !== undefined && current === this.sentSessionId;
  }

  /** The next cycle sends every answer, changed or not. */
  requestFullResend(reason: string): void {
    this.log.debug(`full posture resend requested: ${reason}`);
    this.fullResend = true;
    this.generation++;
  }

  private begin(): Promise<ReportResult> {
    this.timer?.cancel();
    this.timer = undefined;
    const run = this.cycle().finally(() => {
      this.inFlight = undefined;
      if (this.started && !this.queued)
        this.timer = this.clock.setTimeout(() => void this.runNow(), this.intervalMs);
    });
    this.inFlight = run;
    return run;
  }

  private async cycle(): Promise<ReportResult> {
    const status = this.options.session();
    const base = {
      sent: [],
      unchanged: [],
      full: false,
      services: this.options.directory.snapshot?.services ?? [],
    };
    if (status.state !== 'active') return this.publish({ ...base, skipped: status.state });
    let full = this.fullResend;
    try {
      const { directory, api } = this.options;
      await directory.refreshIfChanged();
      // Read after the first request: an expired session has been replaced by a new login by now.
      if (this.options.session().apiSessionId !== this.sentSessionId)
        this.requestFullResend('new API session');
      const generation = this.generation;
      full = this.fullResend;
      const services = directory.snapshot?.services ?? [];
      const plan = planCollection(services, this.options.platform);
      const responses = await collectAnswers(plan, this.options.collector, this.options.facts, this.log);
      this.forgetObsolete(responses);
      const sent = full
        ? responses
        : responses.filter((r) => this.acknowledged.get(responseKey(r)) !== JSON.stringify(r));
      const unchanged = responses.filter((r) => !sent.includes(r));
      if (sent.length > 0) {
        await api.postPostureBulk(sent);
        for (const r of sent) this.acknowledged.set(responseKey(r), JSON.stringify(r));
      }
      // The session that received the data: a re-login during the send has already happened by now.
      this.sentSessionId = this.options.session().apiSessionId;
      if (generation === this.generation) this.fullResend = false;
      // Access may have changed with the data; read it back so the UI and prompts see the new state.
      const after = sent.length > 0 ? (await directory.refresh()).services : services;
      return this.publish({ sent, unchanged, full, services: after });
    } catch (error) {
      this.requestFullResend(`cycle failed: ${errorMessage(error)}`);
      this.log.warn(`posture report failed: ${errorMessage(error)}`);
      return this.publish({
        ...base,
        full,
        error: error instanceof Error ? error : new Error(String(error)),
      });
    }
  }

  /** Answers no check asks for any more are dropped, so a check that comes back is answered afresh. */
  private forgetObsolete(responses: PostureResponse[]): void {
    const live = new Set(responses.map(responseKey));
    for (const key of [...this.acknowledged.keys()]) if (!live.has(key)) this.acknowledged.delete(key);
  }

  private publish(result: ReportResult): ReportResult {
    this.reports.emit(result);
    return result;
  }
}
