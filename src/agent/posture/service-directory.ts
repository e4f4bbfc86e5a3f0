/**
 * The identity's services as last read from the controller, shared by the reporter (which queries to
 * answer), the power and timeout watchers (which services prompt) and the UI (the table, the tray).
 * The list is re-read when `service-updates` says something changed, and on demand after a posture send.
 */
import type { ServiceDetail } from '../../api/services.js';
import type { EdgeApi } from '../client/edge-api.js';
import { systemClock, type Clock } from '../../common/clock.js';
import { Listeners } from '../../common/listeners.js';

export interface ServiceSnapshot {
  services: ServiceDetail[];
  /** Epoch ms of the read: `timeoutRemaining` values count from here. */
  fetchedAt: number;
}

export class ServiceDirectory {
  readonly updates = new Listeners<ServiceSnapshot>();
  private current: ServiceSnapshot | undefined;
  private lastChangeAt: string | undefined;
  private inFlight: Promise<ServiceSnapshot> | undefined;
  private readonly clock: Clock;

  constructor(
    private readonly api: EdgeApi,
    clock?: Clock,
  ) {
    this.clock = clock ?? systemClock;
  }

  get snapshot(): ServiceSnapshot | undefined {
    return this.current;
  }

  /** Reads the list now; concurrent callers share one read. */
  refresh(): Promise<ServiceSnapshot> {
    this.inFlight ??= this.read().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  /** Reads the list if it was never read or `lastChangeAt` moved; resolves whether it was read. */
  async refreshIfChanged(): Promise<boolean> {
    const { lastChangeAt } = await this.api.serviceUpdates();
    if (this.current && lastChangeAt === this.lastChangeAt) return false;
    // Recorded before the read, so a change that lands during the read is caught by the next poll.
    this.lastChangeAt = lastChangeAt;
    await this.refresh();
    return true;
  }

  /** Forgets everything (logout); the next poll reads afresh. */
  clear(): void {
    this.current = undefined;
    this.lastChangeAt = undefined;
  }

  private async read(): Promise<ServiceSnapshot> {
    const fetchedAt = this.clock.now();
    const services = await this.api.listServices();
    this.current = { services, fetchedAt };
    this.updates.emit(this.current);
    return this.current;
  }
}
