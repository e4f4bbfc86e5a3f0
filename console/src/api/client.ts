/**
 * The console's only way to the controller: the management API on this origin, `zt-session` in a header.
 *
 * The token lives in this module's memory and nowhere else: not in localStorage (which outlives the tab and
 * every sign-out), not in sessionStorage (any script of the origin could read it there just as well, and a
 * reload would keep an administrator's session alive in a tab nobody watches), never in a URL (URLs land in
 * history, logs and referrers). A reload or a new tab signs in again, and leaving the page ends the API
 * session on the controller (`endOnPageHide`).
 */
import type { Envelope } from '../../../src/api/envelopes.js';
import { isErrorEnvelope } from '../../../src/api/envelopes.js';
import { ApiError } from './api-error.js';

export const MANAGEMENT = '/edge/management/v1';
const SESSION_HEADER = 'zt-session';

type Listener = () => void;

export class ManagementClient {
  private token: string | null = null;
  private readonly expiredListeners = new Set<Listener>();

  get hasToken(): boolean {
    return this.token !== null;
  }

  setToken(token: string | null): void {
    this.token = token;
  }

  /** Called when the API says the session is gone (expired, ended elsewhere, MFA reset). */
  onExpired(listener: Listener): () => void {
    this.expiredListeners.add(listener);
    return () => this.expiredListeners.delete(listener);
  }

  /** `extra`: headers of this request only (an identity provider's token as the bearer of a sign-in). */
  async request<T>(
    method: string,
    path: string,
    body?: unknown,
    extra: Record<string, string> = {},
  ): Promise<Envelope<T>> {
    const headers: Record<string, string> = { accept: 'application/json', ...extra };
    if (this.token) headers[SESSION_HEADER] = this.token;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${MANAGEMENT}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch {
      throw new ApiError(0, 'UNREACHABLE', 'The controller could not be reached');
    }
    const text = await response.text();
    const parsed: unknown = text ? safeJson(text) : {};
    if (response.ok) return parsed as Envelope<T>;
    const error = isErrorEnvelope(parsed)
      ? ApiError.fromEnvelope(response.status, parsed)
      : new ApiError(response.status, 'HTTP_ERROR', `The controller answered ${response.status}`);
    // A signed-in console whose session stopped working: back to the sign-in.
    if (response.status === 401 && error.code === 'UNAUTHORIZED' && this.token) {
      this.token = null;
      this.expiredListeners.forEach((l) => l());
    }
    throw error;
  }

  get = <T>(path: string) => this.request<T>('GET', path);
  post = <T>(path: string, body: unknown = {}) => this.request<T>('POST', path, body);
  patch = <T>(path: string, body: unknown) => this.request<T>('PATCH', path, body);
  put = <T>(path: string, body: unknown) => this.request<T>('PUT', path, body);
  delete = <T>(path: string) => this.request<T>('DELETE', path);

  /**
   * Leaving the page (close, reload, another site) drops the token from memory, so the API session is
   * ended too rather than left to time out. `keepalive` lets the request outlive the page.
   */
  endOnPageHide(): void {
    window.addEventListener('pagehide', () => {
      if (!this.token) return;
      void fetch(`${MANAGEMENT}/current-api-session`, {
        method: 'DELETE',
        headers: { [SESSION_HEADER]: this.token },
        keepalive: true,
        credentials: 'omit',
      }).catch(() => undefined);
      this.token = null;
      // Restored from the back-forward cache, the page shows the sign-in, not a console without a session.
      this.expiredListeners.forEach((l) => l());
    });
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { error: { code: 'NOT_JSON', message: text.slice(0, 200) } };
  }
}

/** The one client of this page. */
export const api = new ManagementClient();
