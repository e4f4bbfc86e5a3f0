/**
 * What intercept mode asks of the machine, as one seam: the tunnel manager says which services are intercepted
 * and where its listener is; the host (Linux: a route anchor, nftables redirection and the agent's resolver)
 * makes the system send those connections there, and turns a resolver address back into the name asked for.
 */
import type { InterceptV1 } from '../../api/data-plane.js';

export interface InterceptedService {
  id: string;
  name: string;
  intercept: InterceptV1;
}

export interface InterceptHost {
  /**
   * Replaces the intercepted set. Resolves once the system carries it: names answered, addresses routed and
   * redirected to `listenPort`, never the agent's own traffic to `bypass` (its controller and edge routers).
   */
  apply(
    services: readonly InterceptedService[],
    listenPort: number,
    bypass: readonly string[],
  ): Promise<void>;
  /** The intercepted name and service behind an address the resolver handed out, if it is one. */
  nameFor(address: string): { name: string; serviceId: string } | undefined;
  /** Undoes every change to the system (normal stop). */
  restore(): Promise<void>;
}

export interface InterceptHostOptions {
  /** where the record of system changes is kept, so a crashed run's changes are undone at the next start */
  stateDir: string;
  /** a line for the log (what was restored from an earlier run) */
  log: (message: string) => void;
}

/** A host for this machine, or why intercept mode cannot run here, in words a user can act on. */
export type OpenedInterceptHost = { host: InterceptHost } | { unavailable: string };
