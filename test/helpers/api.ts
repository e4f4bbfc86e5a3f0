/** A small HTTP client for tests: raw status, body and headers, no retries, nothing hidden. */
import { request as httpsRequest } from 'node:https';
export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export const CLIENT = '/edge/client/v1';
export const MGMT = '/edge/management/v1';

export class Api {
  /** `ca`: trust this PEM for an https controller with a private certificate (fetch cannot be told so). */
  constructor(
    readonly baseUrl: string,
    public token?: string,
    readonly ca?: string,
  ) {}

  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> {
    const init: RequestInit = { method, headers: { ...headers } };
    if (this.token) (init.headers as Record<string, string>)['zt-session'] = this.token;
    if (body !== undefined) {
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = this.ca
      ? await requestTrusting(this.ca, method, this.baseUrl + path, init)
      : await fetch(this.baseUrl + path, init);
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  get = <T = any>(path: string, headers?: Record<string, string>) =>
    this.request<T>('GET', path, undefined, headers);
  post = <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
    this.request<T>('POST', path, body ?? {}, headers);
  put = <T = any>(path: string, body: unknown) => this.request<T>('PUT', path, body);
  patch = <T = any>(path: string, body: unknown) => this.request<T>('PATCH', path, body);
  delete = <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
    this.request<T>('DELETE', path, body, headers);

  /** Password login on the given API; keeps the token for later calls. */
  async login(username: string, password: string, prefix = MGMT): Promise<ApiResponse> {
    const res = await this.request('POST', `${prefix}/authenticate?method=password`, { username, password });
    if (res.status === 200) this.token = res.headers.get('zt-session') ?? undefined;
    return res;
  }

  as(token?: string): Api {
    return new Api(this.baseUrl, token, this.ca);
  }
}

/** One HTTPS request trusting `ca`, answered as a fetch Response. */
function requestTrusting(ca: string, method: string, url: string, init: RequestInit): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method, ca, headers: init.headers as Record<string, string> }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers))
          if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
        resolve(new Response(Buffer.concat(chunks), { status: res.statusCode, headers }));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body as string | undefined);
  });
}

/** Creates an identity with a password and returns its id. */
export async function createUser(
  admin: Api,
  name: string,
  password: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const created = await admin.post(`${MGMT}/identities`, { name, type: 'User', isAdmin: false, ...extra });
  if (created.status !== 201) throw new Error(`identity create failed: ${JSON.stringify(created.body)}`);
  const id = created.body.data.id as string;
  const auth = await admin.post(`${MGMT}/authenticators`, {
    method: 'updb',
    identityId: id,
    username: name,
    password,
  });
  if (auth.status !== 201) throw new Error(`authenticator create failed: ${JSON.stringify(auth.body)}`);
  return id;
}

/** A complete auth policy body: password logins allowed, TOTP required or not. */
export const authPolicyBody = (name: string, requireTotp: boolean) => ({
  name,
  primary: {
    updb: {
      allowed: true,
      minPasswordLength: 5,
      requireSpecialChar: false,
      requireNumberChar: false,
      requireMixedCase: false,
      maxAttempts: 0,
      lockoutDurationMinutes: 0,
    },
    cert: { allowed: false, allowExpiredCerts: false },
    extJwt: { allowed: false, allowedSigners: [] },
  },
  secondary: { requireTotp, requireExtJwtSigner: null },
});
