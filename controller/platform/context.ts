import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { ControllerConfig } from '../config.js';
import type { Store } from '../store/repository.js';
import { WorkGate } from './limits/work-gate.js';
import { FailureLimiter } from './limits/failure-limiter.js';
import { AttemptLimits } from './limits/attempt-limits.js';
import type { LimiterStore } from './limits/limiter-store.js';
import { memoryLimiters } from './limits/memory-failure-counters.js';
import { SessionTokens } from './keys/session-tokens.js';
import { currentMasterKey } from './keys/master-key.js';
import type { DeliveryEnqueuer } from '../event-delivery-model.js';

/**
 * Things that happen in the controller that other parts react to (posture evaluation re-checks the
 * identity, timers are reset, ...). Emitted after the change is stored.
 */
export interface ControllerEvents {
  'identity.changed': [identityId: string];
  'identity.deleted': [identityId: string];
  'apiSession.created': [apiSessionId: string, identityId: string];
  'apiSession.deleted': [apiSessionId: string, identityId: string];
  /**
   * services, configs, policies, posture checks or routers changed: every identity may be affected.
   * `elsewhere`: another instance sharing the database made the change (heard through its announcement);
   * that instance re-evaluates too, so this one need not mark every identity's services as changed again.
   */
  'policy.changed': [origin?: 'elsewhere'];
  /** the API session passed TOTP now (POST /authenticate/mfa or enrollment verify) */
  'mfa.passed': [apiSessionId: string, identityId: string];
  /** the identity's MFA enrollment was removed (by the user or an admin): MFA checks fail for all its sessions */
  'mfa.removed': [identityId: string];
  /**
   * the identity's MFA enrollment was started, verified or removed (by the user anywhere, or an admin's
   * reset): its agents re-read their MFA state. Emitted before the change ends any API session, so a
   * stream of an ending session still hears it.
   */
  'mfa.changed': [identityId: string];
  /**
   * Published after commit by the session outbox (never inside a transaction): edge sessions that were
   * created or removed, whatever code path did it. Routers cut the removed sessions' streams.
   */
  'sessions.added': [sessionIds: string[]];
  'sessions.removed': [sessions: { id: string; identityId: string; apiSessionId: string }[]];
  /** published after commit: what the identity's services grant changed (lastChangeAt moved) */
  'access.changed': [identityId: string, lastChangeAt: Date];
}

/**
 * Events are published after the transaction that caused them commits, never inside it: an event emitted
 * inside a transaction is queued on it (`Store.afterCommit`) and published, in order, once it has committed,
 * and the transaction resolves only after the listeners have settled, so a request that changed access is
 * answered after the revocations it causes are in place. Listeners see committed state only; an event of a
 * rolled-back transaction is never published. Listeners may be asynchronous: `publish` awaits them.
 */
export class ControllerEventBus extends EventEmitter<ControllerEvents> {
  private readonly inflight = new Set<Promise<unknown>>();

  constructor(private readonly afterCommit: (fn: () => unknown) => boolean = () => false) {
    super();
    // Every agent's event stream listens here: hundreds of listeners are expected, not a leak.
    this.setMaxListeners(0);
  }

  override emit<K extends keyof ControllerEvents>(event: K, ...args: ControllerEvents[K]): boolean {
    const heard = this.listenerCount(event) > 0;
    if (!this.afterCommit(() => this.publish(event, ...args))) this.track(this.publish(event, ...args));
    return heard;
  }

  /** Calls every listener now, inside a transaction or not; resolves once the asynchronous ones settled. */
  async publish<K extends keyof ControllerEvents>(event: K, ...args: ControllerEvents[K]): Promise<void> {
    const pending: unknown[] = [];
    // rawListeners keeps `once` listeners' removal; each wrapper answers what its listener does.
    for (const listener of this.rawListeners(event) as ((...a: unknown[]) => unknown)[])
      pending.push(listener.apply(this, args));
    await Promise.allSettled(pending);
  }

  /** Resolves once every listener started by an event emitted outside a transaction has settled. */
  async settled(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  private track(work: Promise<unknown>): void {
    this.inflight.add(work);
    void work.finally(() => this.inflight.delete(work));
  }
}

export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

/** The controller's shared services, handed to every route module. */
export interface ControllerContext {
  config: ControllerConfig;
  store: Store;
  log: Logger;
  clock: Clock;
  events: ControllerEventBus;
  /**
   * where attempt limits keep their counts: this process's memory, or (on PostgreSQL) the database every
   * controller shares, so attempts spread over controllers count once
   */
  limiters: LimiterStore;
  /** failed password logins: per username and address, per address, per username */
  loginLimits: AttemptLimits;
  /** failed router enrollments per source address */
  routerEnrollLimiter: FailureLimiter;
  /** bounds the password hashing anonymous clients can cause */
  passwordHashing: WorkGate;
  /** derives edge-session tokens from the master key: only their hashes are stored */
  sessionTokens: SessionTokens;
  /**
   * Queues an audit event's webhook and syslog deliveries; call it inside the transaction that writes the
   * event (events/delivery/enqueue.ts). Set once delivery has started.
   */
  eventDeliveries?: DeliveryEnqueuer;
}

export function createContext(
  config: ControllerConfig,
  store: Store,
  log: Logger,
  clock: Clock = systemClock,
  limiters: LimiterStore = memoryLimiters,
): ControllerContext {
  // Read through the context so a replaced clock (tests) applies here too.
  const now = () => context.clock.now().getTime();
  const rule = (maxFailures: number, maxBlockMs = 15 * 60_000) => ({
    maxFailures,
    windowMs: config.loginWindowSeconds * 1000,
    baseBlockMs: 30_000,
    maxBlockMs,
  });
  const context: ControllerContext = {
    config,
    store,
    log,
    clock,
    events: new ControllerEventBus((fn) => store.afterCommit(fn)),
    limiters,
    loginLimits: new AttemptLimits(
      {
        perPair: rule(config.loginMaxFailures),
        perAddress: rule(config.loginMaxFailuresPerAddress),
        // Short and capped: an account guessed at from everywhere stays reachable after a few minutes.
        perAccount: rule(config.loginMaxFailuresPerAccount, 5 * 60_000),
      },
      now,
      limiters,
      'login',
    ),
    routerEnrollLimiter: new FailureLimiter(
      { ...rule(config.loginMaxFailuresPerAddress), now },
      limiters.counters('router-enroll', rule(config.loginMaxFailuresPerAddress)),
    ),
    // Two hashes at once keep both cores' worth of libuv threads for everything else; a short queue behind.
    passwordHashing: new WorkGate(2, 32),
    sessionTokens: new SessionTokens(() => currentMasterKey(config.dataDir, (message) => log.warn(message))),
  };
  return context;
}
