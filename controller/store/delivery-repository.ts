/**
 * The durable event delivery queue (events/delivery/): one row per event and target, written in the
 * transaction that records the event, so a committed event is delivered at least once and a rolled-back one
 * never. Claims are leases: a claimer that stops loses its rows when the lease ends, and another (or the same
 * after a restart) delivers them. Only the oldest pending row of each target is ever claimable, so a target
 * receives its events in order and a failing one holds back only its own.
 */
import type { Async } from './async.js';
import type { Delivery, DeliveryState, NewDelivery } from '../event-delivery-model.js';

export interface DeliveryListQuery {
  target?: string;
  state?: DeliveryState;
  limit: number;
  offset: number;
}

export interface SyncDeliveryRepository {
  enqueue(deliveries: readonly NewDelivery[]): void;
  /**
   * Leases up to `limit` due deliveries for `leaseMs`, each the oldest pending one of its target and not leased
   * by anyone now (nor `exceptTargets`, which this claimer is still busy with). Of racing claimers, each row
   * goes to one.
   */
  claim(owner: string, leaseMs: number, limit: number, exceptTargets: readonly string[]): Delivery[];
  /** the delivery went; false when the lease was lost meanwhile (another claimer has it) */
  delivered(id: string, owner: string): boolean;
  /** an attempt failed: try again in `retryInMs`, or dead-letter it when `dead` */
  failed(id: string, owner: string, error: string, retryInMs: number, dead: boolean): boolean;
  /** gives the lease back without counting an attempt (a disabled subscription), due again in `retryInMs` */
  release(id: string, owner: string, retryInMs: number): void;
  /** a dead (or delivered) delivery queued again, as a new attempt series at the end of its target's order */
  redeliver(id: string): Delivery | undefined;
  get(id: string): Delivery | undefined;
  list(query: DeliveryListQuery): { items: Delivery[]; totalCount: number };
  /** pending deliveries of one target (the syslog buffer's fill) */
  countPending(target: string): number;
  /** a deleted subscription's rows go with it */
  deleteTarget(target: string): void;
  /** delivered rows older than `olderThanMs` go (the dead-letter list stays until redelivered or its target goes) */
  pruneDelivered(olderThanMs: number): number;
}

export type DeliveryRepository = Async<SyncDeliveryRepository>;
