/**
 * The controller's pushed updates for this API session (server-sent events on
 * `GET /edge/client/v1/current-api-session/events`), so the service table and the tunnels change as soon as
 * access does. Reconnects with backoff; the agent's periodic poll stays the backstop when it cannot connect.
 * Only events of the documented shape reach the agent; whatever goes wrong reading one stream ends that
 * stream (and a new one is opened later), never the agent.
 */
import http from 'node:http';
import https from 'node:https';
import { AGENT_EVENTS_PATH, type AgentEvent } from '../../api/data-plane.js';
import { CLIENT_API_PREFIX, SESSION_HEADER } from '../../api/paths.js';
import { controllerHttpsAgent, type ControllerTrust } from '../../controller-client/controller-trust.js';
import { EventStreamParser, type StreamEvent } from './event-stream-parser.js';

export interface AgentEventsOptions {
  baseUrl: string;
  token: () => string | undefined;
  trust?: ControllerTrust;
  onEvent(event: AgentEvent): void;
  /** The controller ended an open stream: it does when the API session ends (sign-out elsewhere, an MFA
   *  reset, an expiry), so this is the moment to check the session rather than at the next poll. */
  onEnded?(): void;
  /** a fault reading the stream (not bad input, which is skipped): the stream was closed and will reopen */
  onError?(err: Error): void;
}

const BACKOFF_MIN_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;

export class AgentEvents {
  private request: http.ClientRequest | undefined;
  private timer: NodeJS.Timeout | undefined;
  private attempt = 0;
  private running = false;

  private readonly httpsAgent: https.Agent;

  constructor(private readonly options: AgentEventsOptions) {
    this.httpsAgent = controllerHttpsAgent(options.trust ?? {});
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.connect();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.request?.destroy();
    this.request = undefined;
  }

  private connect(): void {
    const token = this.options.token();
    if (!this.running) return;
    if (!token) return this.retryLater();
    const url = new URL(`${this.options.baseUrl}${CLIENT_API_PREFIX}${AGENT_EVENTS_PATH}`);
    const get = url.protocol === 'https:' ? https.get : http.get;
    const request = get(
      url,
      {
        headers: { [SESSION_HEADER]: token, accept: 'text/event-stream' },
        ...(url.protocol === 'https:' ? { agent: this.httpsAgent } : {}),
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          return this.retryLater();
        }
        this.attempt = 0;
        const parser = new EventStreamParser();
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          try {
            const events = parser.feed(chunk);
            // A stream that never ends a message is not one to keep reading.
            if (events === 'too-large') return void request.destroy();
            for (const raw of events) {
              const event = agentEventOf(raw);
              if (event) this.options.onEvent(event);
            }
          } catch (err) {
            request.destroy();
            this.options.onError?.(err as Error);
          }
        });
        response.on('error', () => undefined); // a cut stream: 'close' follows and reconnects
        response.on('close', () => {
          if (this.running) this.options.onEnded?.();
          this.retryLater();
        });
      },
    );
    request.on('error', () => this.retryLater());
    this.request = request;
  }

  private retryLater(): void {
    this.request = undefined;
    if (!this.running || this.timer) return;
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** this.attempt++);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.connect();
    }, delay);
    this.timer.unref();
  }
}

/** The event when it is one the agent knows, in the documented shape; anything else is skipped (the poll catches up). */
export function agentEventOf(raw: StreamEvent): AgentEvent | undefined {
  let data: unknown;
  try {
    data = JSON.parse(raw.data);
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null) return undefined;
  const fields = data as Record<string, unknown>;
  if (raw.event === 'service-updates' && typeof fields.lastChangeAt === 'string')
    return { event: raw.event, data: { lastChangeAt: fields.lastChangeAt } };
  const ids = fields.sessionIds;
  if (raw.event === 'sessions-removed' && Array.isArray(ids) && ids.every((id) => typeof id === 'string'))
    return { event: raw.event, data: { sessionIds: ids as string[] } };
  if (raw.event === 'mfa-changed' && Object.keys(fields).length === 0 && !Array.isArray(data))
    return { event: raw.event, data: {} };
  return undefined;
}
