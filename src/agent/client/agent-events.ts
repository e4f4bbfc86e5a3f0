/**
 * The controller's pushed updates for this API session (server-sent events on
 * `GET /edge/client/v1/current-api-session/events`), so the service table and the tunnels change as soon as
 * access does. Reconnects with backoff; the agent's periodic poll stays the backstop when it cannot connect.
 */
import http from 'node:http';
import https from 'node:https';
import { AGENT_EVENTS_PATH, type AgentEvent } from '../../api/data-plane.js';
import { CLIENT_API_PREFIX, SESSION_HEADER } from '../../api/paths.js';
import { controllerHttpsAgent, type ControllerTrust } from './controller-trust.js';

export interface AgentEventsOptions {
  baseUrl: string;
  token: () => string | undefined;
  trust?: ControllerTrust;
  onEvent(event: AgentEvent): void;
  /** The controller ended an open stream: it does when the API session ends (sign-out elsewhere, an MFA
   *  reset, an expiry), so this is the moment to check the session rather than at the next poll. */
  onEnded?(): void;
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
        let buffer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            this.dispatch(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
          // A stream that never ends a message is not one to keep reading.
          if (buffer.length > 1 << 20) request.destroy();
        });
        response.on('close', () => {
          if (this.running) this.options.onEnded?.();
          this.retryLater();
        });
      },
    );
    request.on('error', () => this.retryLater());
    this.request = request;
  }

  private dispatch(block: string): void {
    let event = '';
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data += line.slice(5).trim();
    }
    if (!event || !data) return;
    try {
      this.options.onEvent({ event, data: JSON.parse(data) } as AgentEvent);
    } catch {
      // a malformed event is skipped; the poll catches up
    }
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
