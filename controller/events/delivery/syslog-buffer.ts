/**
 * The syslog export's bound: the events queued for syslog and not yet sent (its rows in the delivery queue)
 * never exceed `capacity`. A SIEM that stays unreachable would otherwise grow the database without end. When
 * full, a new event is not queued for syslog (webhooks still get it, and the trail keeps it: an export can be
 * replayed from GET /audit-events), the loss is counted, said once in the log per episode, and shown in the
 * status (GET /event-export/syslog).
 */
import type { Logger } from 'pino';
import type { Store } from '../../store/repository.js';
import { SYSLOG_TARGET } from '../../event-delivery-model.js';

export class SyslogBuffer {
  dropped = 0;
  full = false;

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    readonly capacity: number,
  ) {}

  /** Whether one more event fits; counts and reports one that does not. */
  async admit(): Promise<boolean> {
    const pending = await this.store.deliveries.countPending(SYSLOG_TARGET);
    if (pending < this.capacity) {
      if (this.full) this.log.info({ pending }, 'the syslog buffer has room again');
      this.full = false;
      return true;
    }
    this.dropped++;
    if (!this.full)
      this.log.warn(
        { capacity: this.capacity },
        'the syslog buffer is full: events are not exported to syslog',
      );
    this.full = true;
    return false;
  }
}
