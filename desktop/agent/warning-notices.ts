/**
 * A notification for each service kept only by warn mode, so the user hears about the deadline without
 * opening the window, but at most once a day per service and deadline: the time of the last one is kept in
 * the desktop's settings, so a restart (or a list redrawn every few seconds) does not tell them again. A
 * deadline the administrator moves is news, and is told at once.
 */
import { dateInWords, warningInWords } from '../../src/api/deadlines.js';
import { blockedFrom, type ServiceAccessView } from '../../src/api/service-access.js';

/** At most one notification per warned service and deadline within this long. */
export const WARNING_NOTICE_INTERVAL_MS = 24 * 60 * 60 * 1000;

/** Where the last notification times live (DesktopSettings). */
export interface WarningNoticeLog {
  warningNoticeTimes(): Promise<Record<string, number>>;
  saveWarningNoticeTimes(times: Record<string, number>): Promise<void>;
}

export interface WarningNotice {
  title: string;
  body: string;
}

export class WarningNotices {
  /** Reviews run one at a time: two lists arriving together must not both notify. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly log: WarningNoticeLog,
    private readonly notify: (notice: WarningNotice) => void,
    private readonly now: () => number = Date.now,
    /** for tests: deadlines are otherwise said in the user's own time zone */
    private readonly timeZone?: string,
  ) {}

  /** Notifies about each warned service not told of in the last day; resolves once recorded. */
  review(services: readonly ServiceAccessView[]): Promise<void> {
    const run = this.queue.then(() => this.reviewNow(services));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async reviewNow(services: readonly ServiceAccessView[]): Promise<void> {
    const now = this.now();
    const stored = await this.log.warningNoticeTimes();
    // An entry a day old no longer holds anything back: dropped, so the file stays small.
    const times = Object.fromEntries(
      Object.entries(stored).filter(([, at]) => now - at < WARNING_NOTICE_INTERVAL_MS && at <= now),
    );
    let changed = Object.keys(times).length !== Object.keys(stored).length;
    for (const service of services) {
      const from = service.access === 'warned' ? blockedFrom(service) : null;
      if (from === null) continue;
      const key = `${service.id}@${from}`;
      if (times[key] !== undefined) continue;
      this.notify(this.noticeFor(service, from));
      times[key] = now;
      changed = true;
    }
    if (changed) await this.log.saveWarningNoticeTimes(times);
  }

  private noticeFor(service: ServiceAccessView, from: string): WarningNotice {
    const fixes = service.warnings.map((w) =>
      [warningInWords(w, this.timeZone), w.remediation ? `Your administrator says: ${w.remediation}` : '']
        .filter(Boolean)
        .join(' '),
    );
    return {
      title: `${service.name} will be blocked from ${dateInWords(from, this.timeZone)}`,
      body: fixes.join('\n'),
    };
  }
}
