/**
 * What a wake or an unlock sets off: ENDPOINT_STATE goes to the controller at once, which
 * starts the 5-minute MFA grace period of checks that prompt on that event; then ONE prompt covers every
 * service whose access now depends on a code, with the grace deadline. A posture cycle follows, since a
 * machine that slept may have moved network or lost a process.
 */
import { randomUUID } from 'node:crypto';
import type { PostureResponseService } from '../../api/posture-responses.js';
import type { ServiceDetail } from '../../api/services.js';
import type { EdgeApi } from '../client/edge-api.js';
import type { PostureReporter } from '../posture/posture-reporter.js';
import type { ServiceDirectory } from '../posture/service-directory.js';
import type { MfaPrompter } from '../prompts/mfa-prompter.js';
import type { PromptPort, PromptService } from '../prompts/prompt-port.js';
import { systemClock, type Clock } from '../../common/clock.js';
import { errorMessage, silentLogger, type AgentLogger } from '../../common/logger.js';
import type { PowerEvent, PowerEvents } from './power-events.js';

/** OpenZiti's MfaPromptGracePeriod, used when the controller's reply gives no time. */
export const MFA_GRACE_SECONDS = 300;

export interface PowerReactorOptions {
  power: PowerEvents;
  api: EdgeApi;
  directory: ServiceDirectory;
  prompter: MfaPrompter;
  reporter: PostureReporter;
  port: PromptPort;
  /** Whether the session can report (active); nothing is sent while signed out or owing a code. */
  canReport: () => boolean;
  /** `false` when the identity has no authenticator: prompting would be pointless. */
  mfaEnrolled: () => boolean | undefined;
  clock?: Clock;
  logger?: AgentLogger;
}

/** Services whose MFA check prompts on this event, with the seconds left if the list says. */
function promptingServices(
  services: readonly ServiceDetail[],
  event: 'wake' | 'unlock',
): { service: PromptService; remaining?: number }[] {
  const found: { service: PromptService; remaining?: number }[] = [];
  for (const service of services) {
    const queries = service.postureQueries
      .flatMap((p) => p.postureQueries)
      .filter((q) => q.queryType === 'MFA');
    const prompting = queries.filter((q) => (event === 'wake' ? q.promptOnWake : q.promptOnUnlock));
    if (prompting.length === 0) continue;
    const remaining = prompting.map((q) => q.timeoutRemaining).filter((r) => r > 0);
    found.push({
      service: { id: service.id, name: service.name },
      remaining: remaining.length ? Math.min(...remaining) : undefined,
    });
  }
  return found;
}

export class PowerReactor {
  private unsubscribe: (() => void) | undefined;
  private readonly clock: Clock;
  private readonly log: AgentLogger;

  constructor(private readonly options: PowerReactorOptions) {
    this.clock = options.clock ?? systemClock;
    this.log = options.logger ?? silentLogger;
  }

  start(): void {
    this.unsubscribe ??= this.options.power.subscribe((event) => void this.handle(event));
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** Handles one event; resolves when its prompt (if any) is settled. Exposed for tests and the CLI. */
  async handle(event: PowerEvent): Promise<void> {
    if (event === 'suspend' || event === 'lock-screen') {
      this.log.debug(`${event}: nothing to send until resume/unlock`);
      return;
    }
    if (!this.options.canReport()) return;
    const { api, directory, reporter, prompter } = this.options;
    const kind = event === 'resume' ? 'wake' : 'unlock';
    const at = this.clock.now();
    let replyServices: PostureResponseService[] = [];
    try {
      const body = {
        id: randomUUID(),
        typeId: 'ENDPOINT_STATE' as const,
        ...(kind === 'wake' ? { woken: true } : { unlocked: true }),
      };
      replyServices = (await api.postPosture(body)).services ?? [];
    } catch (error) {
      this.log.warn(`could not send the ${kind} event: ${errorMessage(error)}`);
    }
    void reporter.runNow();
    const snapshot = await directory.refresh().catch(() => directory.snapshot);
    const candidates = new Map<string, { service: PromptService; remaining?: number }>();
    for (const s of replyServices.filter((r) => r.postureQueryType === 'MFA')) {
      candidates.set(s.id, {
        service: { id: s.id, name: s.name },
        remaining: s.timeoutRemaining > 0 ? s.timeoutRemaining : undefined,
      });
    }
    for (const c of promptingServices(snapshot?.services ?? [], kind))
      if (!candidates.has(c.service.id)) candidates.set(c.service.id, c);
    if (candidates.size === 0) return;

    const services = [...candidates.values()].map((c) => c.service);
    if (this.options.mfaEnrolled() === false) {
      this.options.port.notify({ type: 'mfa-enrollment-required', services });
      return;
    }
    const remaining = [...candidates.values()]
      .map((c) => c.remaining)
      .filter((r): r is number => r !== undefined);
    const seconds = remaining.length ? Math.min(...remaining) : MFA_GRACE_SECONDS;
    await prompter.request({ reason: kind, services, deadline: at + seconds * 1000, since: at });
  }
}
