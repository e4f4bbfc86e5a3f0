/**
 * The HTTP client for the controller (axios), shared by the agent, the admin CLI and the edge router's
 * enrollment. It adds the `zt-session` header, unwraps OpenZiti's `{data, meta}` envelope, turns
 * `{error:{...}}` bodies and transport failures into ControllerError, retries transient failures (see
 * retry-policy.ts), and, when a request made with a token is refused with 401, asks the session layer to
 * sign in again once and repeats the request.
 */
import http from 'node:http';
import type { Readable } from 'node:stream';
import https from 'node:https';
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import { isErrorEnvelope, type Envelope } from '../api/envelopes.js';
import { CLIENT_API_PREFIX, SESSION_HEADER } from '../api/paths.js';
import { sleep, systemClock, type Clock } from '../common/clock.js';
import { Listeners } from '../common/listeners.js';
import { silentLogger, type AgentLogger } from '../common/logger.js';
import { ControllerError, LOCAL_ERROR_CODES, transportError } from './controller-error.js';
import { assertTransportAllowed } from './plain-http.js';
import { controllerHttpsAgent, type ControllerTrust } from './controller-trust.js';
import { DEFAULT_RETRY, parseRetryAfter, retryDelay, type RetryOptions } from './retry-policy.js';

/** A wait longer than this is said (how long and why); a controller silent for twice this is named. */
export const SAY_WAITS_OVER_MS = 1_000;

/** `too many failed sign-ins; wait 30 s, then trying again`: how long, and why. */
function waitReason(path: string, error: ControllerError, delayMs: number, baseUrl: string): string {
  const why =
    error.status === 429
      ? path.startsWith('/authenticate')
        ? 'too many failed sign-ins'
        : 'the controller asks to slow down'
      : `no answer from the controller at ${baseUrl} (${error.message})`;
  return `${why}; wait ${Math.ceil(delayMs / 1000)} s, then trying again`;
}

export interface ControllerClientOptions {
  /** `https://controller:1280`, without the API prefix. */
  baseUrl: string;
  /** how the controller's certificate is trusted (system CAs when empty) */
  trust?: ControllerTrust;
  /** allow `http://` to a host other than loopback (refused otherwise: see plain-http.ts) */
  allowPlainHttp?: boolean;
  timeoutMs?: number;
  retry?: Partial<RetryOptions>;
  clock?: Clock;
  random?: () => number;
  logger?: AgentLogger;
}

export interface RequestOptions {
  query?: Record<string, string | number>;
  body?: unknown;
  headers?: Record<string, string>;
  /** Send the session token (default true). */
  auth?: boolean;
  /** On a 401, sign in again once and repeat (default true). Off for the login calls themselves. */
  reauth?: boolean;
  /** Retry transient failures (default true). Off for one-time codes, which must not be replayed. */
  retry?: boolean;
  /** `/edge/client/v1` unless given. */
  prefix?: string;
  /** The answer is not an OpenZiti envelope (a JWKS): a success's body is taken as `data` as it is. */
  unwrapped?: boolean;
}

/** Signs in again after a 401; resolves whether a new token is in place. */
export type Reauthenticator = () => Promise<boolean>;

export class ControllerClient {
  readonly baseUrl: string;
  /** `true` when the controller answers, `false` when it cannot be reached; fired on every change. */
  readonly reachability = new Listeners<boolean>();
  private token: string | undefined;
  private reachable: boolean | undefined;
  private reauthenticator: Reauthenticator | undefined;
  private reauthInFlight: Promise<boolean> | undefined;
  private readonly http: AxiosInstance;
  private readonly agents: { http: http.Agent; https: https.Agent };
  private readonly retry: RetryOptions;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly log: AgentLogger;
  /** "still waiting for the controller" was said: once is enough */
  private slowSaid = false;

  constructor(options: ControllerClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    assertTransportAllowed(this.baseUrl, options.allowPlainHttp);
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.log = options.logger ?? silentLogger;
    this.agents = {
      http: new http.Agent({ keepAlive: true }),
      https: controllerHttpsAgent(options.trust ?? {}, { keepAlive: true }),
    };
    this.http = axios.create({
      baseURL: this.baseUrl,
      timeout: options.timeoutMs ?? 15_000,
      httpAgent: this.agents.http,
      httpsAgent: this.agents.https,
      // Statuses are interpreted here, not by axios, so every error becomes a ControllerError.
      validateStatus: () => true,
      maxRedirects: 0,
      headers: { accept: 'application/json' },
    });
  }

  get sessionToken(): string | undefined {
    return this.token;
  }

  setSessionToken(token: string | undefined): void {
    this.token = token;
  }

  setReauthenticator(reauthenticator: Reauthenticator | undefined): void {
    this.reauthenticator = reauthenticator;
  }

  /** The envelope's `data`. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    return (await this.requestEnvelope<T>(method, path, options)).data;
  }

  async requestEnvelope<T>(method: string, path: string, options: RequestOptions = {}): Promise<Envelope<T>> {
    let reauthenticated = false;
    for (;;) {
      const token = options.auth === false ? undefined : this.token;
      try {
        return await this.withRetries<T>(method, path, options, token);
      } catch (error) {
        const mayReauth = options.reauth !== false && token !== undefined && !reauthenticated;
        if (!(error instanceof ControllerError) || error.status !== 401 || !mayReauth) throw error;
        reauthenticated = true;
        // Another request may already have signed in again while this one was on the wire.
        if (this.token !== token && this.token !== undefined) continue;
        if (!(await this.reauthenticate())) throw error;
      }
    }
  }

  /**
   * A GET whose answer is a file streamed as it is read (an audit export): the body, and the headers that
   * describe it. A refusal is an envelope like any other and throws its ControllerError; nothing is retried,
   * so a stream is never read twice.
   */
  async download(
    path: string,
    options: Pick<RequestOptions, 'query' | 'prefix'> = {},
  ): Promise<{ body: Readable; headers: Record<string, string | undefined> }> {
    let response: AxiosResponse<Readable>;
    try {
      response = await this.http.request<Readable>({
        method: 'GET',
        url: `${options.prefix ?? CLIENT_API_PREFIX}${path}`,
        params: options.query,
        responseType: 'stream',
        headers: this.token ? { [SESSION_HEADER]: this.token } : {},
      });
    } catch (error) {
      throw transportError(error, this.baseUrl);
    }
    const headers = Object.fromEntries(
      Object.entries(response.headers).map(([k, v]) => [k.toLowerCase(), v === undefined ? v : String(v)]),
    );
    if (response.status >= 200 && response.status < 300) return { body: response.data, headers };
    let text = '';
    for await (const chunk of response.data) text += String(chunk);
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: interpreted as a bare HTTP status below
    }
    return this.interpret<never>('GET', path, { ...response, data: body }) as never;
  }

  /** Releases pooled connections; the client must not be used afterwards. */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** One re-authentication at a time; concurrent 401s share it. */
  private reauthenticate(): Promise<boolean> {
    if (!this.reauthenticator) return Promise.resolve(false);
    this.reauthInFlight ??= this.reauthenticator()
      .catch((error: unknown) => {
        this.log.warn(`signing in again failed: ${error instanceof Error ? error.message : String(error)}`);
        return false;
      })
      .finally(() => {
        this.reauthInFlight = undefined;
      });
    return this.reauthInFlight;
  }

  private async withRetries<T>(
    method: string,
    path: string,
    options: RequestOptions,
    token?: string,
  ): Promise<Envelope<T>> {
    for (let retry = 0; ; retry++) {
      try {
        return await this.send<T>(method, path, options, token);
      } catch (error) {
        if (!(error instanceof ControllerError) || options.retry === false) throw error;
        const delay = retryDelay(retry, error, this.retry, this.random);
        if (delay === undefined) throw error;
        if (delay > SAY_WAITS_OVER_MS) this.log.warn(waitReason(path, error, delay, this.baseUrl));
        this.log.debug(`${method} ${path} failed (${error.code}); retry ${retry + 1} in ${delay} ms`);
        await sleep(this.clock, delay);
      }
    }
  }

  private async send<T>(
    method: string,
    path: string,
    options: RequestOptions,
    token?: string,
  ): Promise<Envelope<T>> {
    let response: AxiosResponse<unknown>;
    // A controller slow to answer is named once, with the address tried, rather than waited on in silence.
    const slow = setTimeout(() => {
      if (this.slowSaid) return;
      this.slowSaid = true;
      this.log.warn(`still waiting for the controller at ${this.baseUrl}`);
    }, SAY_WAITS_OVER_MS * 2);
    try {
      response = await this.http.request({
        method,
        url: `${options.prefix ?? CLIENT_API_PREFIX}${path}`,
        params: options.query,
        data: options.body,
        headers: { ...options.headers, ...(token ? { [SESSION_HEADER]: token } : {}) },
      });
    } catch (error) {
      const failure = transportError(error, this.baseUrl);
      if (failure.isUnreachable) this.setReachable(false);
      throw failure;
    } finally {
      clearTimeout(slow);
    }
    this.setReachable(true);
    return this.interpret<T>(method, path, response, options.unwrapped);
  }

  private interpret<T>(
    method: string,
    path: string,
    response: AxiosResponse<unknown>,
    unwrapped = false,
  ): Envelope<T> {
    const body = response.data;
    if (response.status >= 200 && response.status < 300) {
      if (unwrapped) return { data: body as T, meta: {} };
      if (typeof body === 'object' && body !== null && 'data' in body) return body as Envelope<T>;
      if (body === '' || body === undefined) return { data: undefined as T, meta: {} };
      throw new ControllerError({
        status: response.status,
        code: LOCAL_ERROR_CODES.invalidResponse,
        message: `${method} ${path}: the controller's answer is not an OpenZiti envelope`,
      });
    }
    const retryAfterMs = parseRetryAfter(response.headers['retry-after'], this.clock.now());
    if (isErrorEnvelope(body)) {
      const { code, message, cause, requestId } = body.error;
      return this.fail({
        status: response.status,
        code: code ?? `HTTP_${response.status}`,
        message: message ?? `HTTP ${response.status}`,
        field: cause?.field,
        apiCause: cause ?? undefined,
        retryAfterMs,
        requestId,
      });
    }
    return this.fail({
      status: response.status,
      code: `HTTP_${response.status}`,
      message: `${method} ${path}: HTTP ${response.status}`,
      retryAfterMs,
    });
  }

  private fail(init: ConstructorParameters<typeof ControllerError>[0]): never {
    throw new ControllerError(init);
  }

  private setReachable(reachable: boolean): void {
    if (this.reachable === reachable) return;
    this.reachable = reachable;
    this.reachability.emit(reachable);
  }
}
