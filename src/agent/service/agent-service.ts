/**
 * What the agent service answers on its socket, over the agent it runs: hello (version, mode and why),
 * status (session and services with the addresses each is reached at), subscribe (services, tunnel events,
 * code prompts and notices pushed), submitCode (answers the prompt the agent raised). The mode is honest:
 * `intercept` only once the agent's tunnel runs intercept mode; anything else is proxy, with the reason.
 */
import type { Agent } from '../agent.js';
import { posternVersion } from '../../common/package-version.js';
import type { TunnelEvent } from '../tunnel/tunnel-events.js';
import { ServicePrompts } from './service-prompts.js';
import type { RequestHandlers } from './service-socket-server.js';
import {
  PROTOCOL_VERSION,
  type ServiceEntry,
  type ServiceEvent,
  type ServiceMode,
  type StatusResult,
} from './service-protocol.js';

export class AgentService {
  readonly prompts: ServicePrompts;
  private agent: Agent | undefined;
  private mode: ServiceMode = 'proxy';
  private why = 'the service is starting';
  private problem: string | null = null;
  private readonly offs: (() => void)[] = [];

  constructor(private readonly publish: (event: ServiceEvent) => void) {
    this.prompts = new ServicePrompts(publish);
  }

  /** The agent the service runs; its changes go out as events from now on. */
  attach(agent: Agent): void {
    this.agent = agent;
    this.prompts.watchAccepted(agent.prompter.accepted);
    this.offs.push(agent.serviceChanges.on(() => this.publish({ event: 'services', data: this.entries() })));
    const tunnel = agent.tunnel;
    if (tunnel) {
      const onTunnel = (event: TunnelEvent) => {
        this.publish({ event: 'tunnel', data: event });
        // A listener or intercept opened or closed: the addresses in the services changed.
        if (event.type !== 'warning' && event.type !== 'error')
          this.publish({ event: 'services', data: this.entries() });
      };
      tunnel.events.on('event', onTunnel);
      this.offs.push(() => void tunnel.events.off('event', onTunnel));
    }
  }

  /** The mode is the tunnel's own; proxy mode says why not intercept (`whyNotIntercepting`). */
  settleMode(whyNotIntercepting: string): void {
    const tunnel = this.agent?.tunnel;
    if (tunnel?.mode === 'intercept') {
      this.mode = 'intercept';
      this.why = 'programs reach each service at its own name and address';
    } else {
      this.mode = 'proxy';
      this.why = tunnel ? whyNotIntercepting : 'the agent runs without its tunnel';
    }
  }

  /** No agent (nothing to sign in to) or no session: status says why. */
  setProblem(problem: string | null, mode?: { mode: ServiceMode; why: string }): void {
    this.problem = problem;
    if (mode) ({ mode: this.mode, why: this.why } = mode);
  }

  detach(): void {
    this.offs.splice(0).forEach((off) => off());
  }

  handlers(): RequestHandlers {
    return {
      hello: () => ({
        version: posternVersion(import.meta.url),
        protocol: PROTOCOL_VERSION,
        mode: this.mode,
        why: this.why,
        pid: process.pid,
      }),
      status: () => this.status(),
      subscribe: (_params, connection) => {
        connection.subscribe();
        // A prompt already open is news to a client that just arrived.
        const open = this.prompts.current();
        if (open) queueMicrotask(() => this.publish({ event: 'code-wanted', data: open }));
        return { subscribed: true };
      },
      submitCode: async ({ code }) => ({ accepted: await this.prompts.submit(code) }),
    };
  }

  status(): StatusResult {
    const agent = this.agent;
    let session: StatusResult['session'] = null;
    if (agent) {
      const { apiSessionId: _omitted, ...rest } = agent.status();
      session = rest;
    }
    return { mode: this.mode, why: this.why, session, problem: this.problem, services: this.entries() };
  }

  private entries(): ServiceEntry[] {
    const agent = this.agent;
    if (!agent) return [];
    // Local listeners in proxy mode, the real names and addresses when intercepting.
    const addresses = agent.tunnel?.localAddresses() ?? new Map<string, string[]>();
    const carriers = agent.tunnel?.carriedBy() ?? new Map<string, { name: string }>();
    return agent.services().map((service) => ({
      ...service,
      addresses: addresses.get(service.name) ?? [],
      carriedBy: carriers.get(service.name)?.name ?? null,
    }));
  }
}
