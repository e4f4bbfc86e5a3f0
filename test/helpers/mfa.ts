import { request as httpRequest } from 'node:http';
import { generate } from 'otplib';
import type { ControllerContext } from '../../controller/platform/context.js';
import { Api, CLIENT, createUser, type ApiResponse } from './api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from './controller.js';
import { ResponseSchemas } from './openapi-check.js';

/** Helpers for MFA tests: a fake clock, an authenticator app (otplib), and raw HTTP for odd requests. */

export const STEP_MS = 30_000;

/**
 * Replaces the in-process controller's clock. It starts one second into a TOTP step, so codes never
 * straddle a step boundary, and moves only when told to.
 */
export class FakeClock {
  private ms: number;

  constructor(ctx: ControllerContext, start = Date.now()) {
    this.ms = Math.floor(start / STEP_MS) * STEP_MS + 1_000;
    ctx.clock = { now: () => new Date(this.ms) };
  }

  now(): number {
    return this.ms;
  }

  advance(ms: number): void {
    this.ms += ms;
  }

  /** to the same offset in the next TOTP step: the codes of earlier steps count as used from here on */
  nextStep(): void {
    this.ms += STEP_MS;
  }
}

/** The user's authenticator app: the secret from the provisioning URL, codes from otplib. */
export class AuthenticatorApp {
  readonly secret: string;

  constructor(provisioningUrl: string) {
    const secret = new URL(provisioningUrl).searchParams.get('secret');
    if (!secret) throw new Error(`no secret in ${provisioningUrl}`);
    this.secret = secret;
  }

  /** the code the app shows at `ms` (epoch milliseconds) */
  code(ms: number): Promise<string> {
    return generate({ secret: this.secret, epoch: Math.floor(ms / 1000) });
  }
}

/** A controller for MFA tests: fake clock, logged-in admin, published schemas, and the MFA events seen. */
export interface MfaTestbed {
  tc: TestController;
  admin: Api;
  clock: FakeClock;
  schemas: ResponseSchemas;
  /** `passed <identityId> <apiSessionId>` and `removed <identityId>`, in order */
  events: string[];
  /** a new user (password `password-1`) logged in on `prefix`'s API */
  newUser(name: string, prefix?: string, extra?: Record<string, unknown>): Promise<{ id: string; api: Api }>;
}

export async function startMfaTestbed(): Promise<MfaTestbed> {
  const tc = await startTestController();
  const clock = new FakeClock(tc.ctx);
  const admin = new Api(tc.url);
  await admin.login('admin', ADMIN_PASSWORD);
  const events: string[] = [];
  tc.ctx.events.on('mfa.passed', (sessionId, identityId) => events.push(`passed ${identityId} ${sessionId}`));
  tc.ctx.events.on('mfa.removed', (identityId) => events.push(`removed ${identityId}`));
  return {
    tc,
    admin,
    clock,
    schemas: await ResponseSchemas.load(tc.url),
    events,
    async newUser(name, prefix = CLIENT, extra = {}) {
      const id = await createUser(admin, name, 'password-1', extra);
      const api = new Api(tc.url);
      const res = await api.login(name, 'password-1', prefix);
      if (res.status !== 200) throw new Error(`login failed: ${JSON.stringify(res.body)}`);
      return { id, api };
    },
  };
}

/** Starts an enrollment on the client API; returns the app and the recovery codes shown. */
export async function startEnrollment(
  api: Api,
): Promise<{ app: AuthenticatorApp; recoveryCodes: string[]; status: ApiResponse }> {
  const created = await api.post(`${CLIENT}/current-identity/mfa`, {});
  if (created.status !== 201)
    throw new Error(`enroll failed: ${created.status} ${JSON.stringify(created.body)}`);
  const status = await api.get(`${CLIENT}/current-identity/mfa`);
  return {
    app: new AuthenticatorApp(status.body.data.provisioningUrl),
    recoveryCodes: status.body.data.recoveryCodes,
    status,
  };
}

/** Enrolls and verifies at the clock's current step; the next code must come from a later step. */
export async function enrollVerified(api: Api, clock: FakeClock) {
  const enrollment = await startEnrollment(api);
  const verified = await api.post(`${CLIENT}/current-identity/mfa/verify`, {
    code: await enrollment.app.code(clock.now()),
  });
  if (verified.status !== 200)
    throw new Error(`verify failed: ${verified.status} ${JSON.stringify(verified.body)}`);
  return enrollment;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** parsed JSON, loosely typed like the `Api` helper's bodies */
  body: ApiResponse['body'];
}

/**
 * A request through node:http, for what fetch will not do: a body on GET (GET recovery-codes with `{code}`)
 * and a chosen source address (127.0.0.2 is loopback too on Linux) to tell per-address limits apart.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string>; localAddress?: string } = {},
): Promise<RawResponse> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers['zt-session'] = options.token;
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      new URL(path, baseUrl),
      { method, headers, localAddress: options.localAddress },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const json = (res.headers['content-type'] ?? '').includes('json') && text;
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: json ? JSON.parse(text) : text,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
