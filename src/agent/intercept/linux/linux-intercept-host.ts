/**
 * Intercept mode on Linux: the system layer (postern0 and its routes, the `inet postern` nftables table, the
 * resolver registration, a journal of it all) and the agent's resolver, as one InterceptHost. Opening it first
 * undoes whatever an earlier run left (a crash, kill -9), so every start begins from a clean system. Changes
 * are applied one after another: each is the whole intercepted set, never a partial one.
 */
import { isIP } from 'node:net';
import type {
  InterceptHost,
  InterceptHostOptions,
  InterceptedService,
  OpenedInterceptHost,
} from '../intercept-host.js';
import { InterceptResolver } from '../dns/intercept-resolver.js';
import { RESOLVER_ADDRESS, buildSystemPlan } from '../system/intercept-plan.js';
import { applyInterceptSystem, checkPrivileges, restoreSystem } from '../system/linux-system.js';

const DNS_PORT = 53;

export async function openLinuxInterceptHost(options: InterceptHostOptions): Promise<OpenedInterceptHost> {
  const privileges = await checkPrivileges();
  if (!privileges.ok) return { unavailable: privileges.reason };
  const leftover = await restoreSystem({ stateDir: options.stateDir });
  if (leftover.removed.length)
    options.log(`undid what an earlier run left on this system: ${leftover.removed.join(', ')}`);
  if (leftover.failed.length)
    return { unavailable: `an earlier run's changes could not be undone: ${leftover.failed.join('; ')}` };
  return { host: new LinuxInterceptHost(options) };
}

class LinuxInterceptHost implements InterceptHost {
  private readonly resolver = new InterceptResolver({
    host: RESOLVER_ADDRESS,
    port: DNS_PORT,
    upstreams: [],
  });
  private resolverStarted = false;
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: InterceptHostOptions) {}

  apply(
    services: readonly InterceptedService[],
    listenPort: number,
    bypass: readonly string[],
  ): Promise<void> {
    const next = this.queue.then(() => this.applyNow(services, listenPort, bypass));
    this.queue = next.catch(() => undefined);
    return next;
  }

  nameFor(address: string): { name: string; serviceId: string } | undefined {
    const found = this.resolver.nameFor(address);
    return found && { name: found.name, serviceId: found.service };
  }

  async restore(): Promise<void> {
    this.stopped = true;
    await this.queue;
    if (this.resolverStarted) await this.resolver.stop();
    const report = await restoreSystem({ stateDir: this.options.stateDir });
    if (report.failed.length)
      this.options.log(
        `could not undo everything (tried again at the next start): ${report.failed.join('; ')}`,
      );
  }

  private async applyNow(
    services: readonly InterceptedService[],
    listenPort: number,
    bypass: readonly string[],
  ): Promise<void> {
    if (this.stopped) return;
    this.resolver.setNames(
      services.flatMap((s) =>
        s.intercept.addresses
          .filter((a) => !isIP(a) && !a.includes('/'))
          .map((pattern) => ({ pattern, service: s.id })),
      ),
    );
    const plan = buildSystemPlan({
      services: services.map((s) => ({ name: s.name, intercept: s.intercept })),
      bypass,
    });
    for (const skipped of plan.skipped)
      this.options.log(`${skipped.service} is not intercepted: ${skipped.reason}`);
    const applied = await applyInterceptSystem(plan, { stateDir: this.options.stateDir, listenPort });
    this.resolver.setUpstreams(applied.resolver.upstreams);
    // The resolver's address lives on postern0, which the first apply creates.
    if (!this.resolverStarted) {
      await this.resolver.start();
      this.resolverStarted = true;
    }
  }
}
