import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { ControllerConfig } from './config.js';
import type { Store } from './store/repository.js';
import { WorkGate } from './auth/work-gate.js';
import { FailureLimiter } from './auth/failure-limiter.js';
import { AttemptLimits } from './auth/attempt-limits.js';

/**
 * Things that happen in the controller that other parts react to (posture evaluation re-checks the
 * identity, timers are reset, ...). Emitted after the change is stored.
 */
export interface ControllerEvents {
  'identity.changed': [identityId: string];
  'identity.deleted': [identityId: string];
  'apiSession.created': [apiSessionId: string, identityId: string];
  'apiSession.deleted': [apiSessionId: string, identityId: string];
  /** services, policies or posture checks changed: every identity may be affected */
  'policy.changed': [];
  /** the API session passed TOTP now (POST /authenticate/mfa or enrollment verify) */
  'mfa.passed': [apiSessionId: string, identityId: string];
  /** the identity's MFA enrollment was removed (by the user or an admin): MFA checks fail for all its sessions */
  'mfa.removed': [identityId: string];
  /**
   * Published after commit by the session outbox (never inside a transaction): edge sessions that were
   * created or removed, whatever code path did it. Routers cut the removed sessions' streams.
   */
  'sessions.added': [sessionIds: string[]];
  'sessions.removed': [sessions: { id: string; identityId: string; apiSessionId: string }[]];
  /** published after commit: what the identity's services grant changed (lastChangeAt moved) */
  'access.changed': [identityId: string, lastChangeAt: Date];
}

/** Which edge routers hold a live control link now (the router link module replaces the default). */
export interface RouterPresence {
  isOnline(edgeRouterId: string): boolean;
}

/**
 * Events are published after the transaction that caused them commits, never inside it: an event emitted
 * while a transaction is open is held and released, in order, once the store is out of it. Listeners then
 * see committed state only (and a rolled-back write's event makes them re-read a state that did not change).
 */
export class ControllerEventBus extends EventEmitter<ControllerEvents> {
  private held: [keyof ControllerEvents, unknown[]][] = [];

  constructor(private readonly inTransaction: () => boolean = () => false) {
    super();
    // Every agent's event stream listens here: hundreds of listeners are expected, not a leak.
    this.setMaxListeners(0);
  }

  override emit<K extends keyof ControllerEvents>(event: K, ...args: ControllerEvents[K]): boolean {
    if (!this.inTransaction()) return this.publish(event, args);
    if (this.held.push([event, args]) === 1) queueMicrotask(() => this.release());
    return this.listenerCount(event) > 0;
  }

  private release(): void {
    // Still inside (a long group commit): look again on the next turn of the loop.
    if (this.inTransaction()) return void setImmediate(() => this.release());
    const held = this.held;
    this.held = [];
    for (const [event, args] of held) this.publish(event, args as ControllerEvents[typeof event]);
  }

  private publish<K extends keyof ControllerEvents>(event: K, args: ControllerEvents[K]): boolean {
    return (super.emit as (e: K, ...a: ControllerEvents[K]) => boolean).call(this, event, ...args);
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
  /** failed password logins: per username and address, per address, per username */
  loginLimits: AttemptLimits;
  /** failed router enrollments per source address */
  routerEnrollLimiter: FailureLimiter;
  /** bounds the password hashing anonymous clients can cause */
  passwordHashing: WorkGate;
  /** whether the identity has a verified TOTP enrollment (the MFA module replaces this) */
  isMfaEnrolled(identityId: string): boolean;
  routerPresence: RouterPresence;
}

export function createContext(
  config: ControllerConfig,
  store: Store,
  log: Logger,
  clock: Clock = systemClock,
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
    events: new ControllerEventBus(() => store.inTransaction()),
    loginLimits: new AttemptLimits(
      {
        perPair: rule(config.loginMaxFailures),
        perAddress: rule(config.loginMaxFailuresPerAddress),
        // Short and capped: an account guessed at from everywhere stays reachable after a few minutes.
        perAccount: rule(config.loginMaxFailuresPerAccount, 5 * 60_000),
      },
      now,
    ),
    routerEnrollLimiter: new FailureLimiter({ ...rule(config.loginMaxFailuresPerAddress), now }),
    // Two hashes at once keep both cores' worth of libuv threads for everything else; a short queue behind.
    passwordHashing: new WorkGate(2, 32),
    isMfaEnrolled: () => false,
    routerPresence: { isOnline: () => false },
  };
  return context;
}
