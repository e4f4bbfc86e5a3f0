/**
 * A stand-in controller for the desktop shell's unit tests: real HTTP on loopback answering the client-API
 * calls the agent core makes with OpenZiti envelopes, and recording every request, so a test can drive the
 * real agent core (through desktop/main/) and assert on what went over the wire. The real controller is
 * exercised by the integration and UI tests.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PostureQuery, ServiceDetail } from '../../src/api/services.js';

export interface RecordedRequest {
  method: string;
  /** Without the client-API prefix and query: `/posture-response`. */
  path: string;
  body: unknown;
}

export const GOOD_CODE = '123456';
const PREFIX = '/edge/client/v1';
const STAMP = '2026-01-01T00:00:00.000Z';

/** A service behind one policy with the given checks. */
export function serviceWith(id: string, name: string, queries: Partial<PostureQuery>[]): ServiceDetail {
  const postureQueries = queries.map((q, i) => ({
    id: `${id}-check-${i}`,
    queryType: 'MFA',
    isPassing: true,
    timeout: -1,
    timeoutRemaining: -1,
    ...q,
  }));
  return {
    id,
    name,
    createdAt: STAMP,
    updatedAt: STAMP,
    permissions: ['Dial'],
    postureQueries: [
      {
        policyId: `${id}-policy`,
        policyType: 'Dial',
        isPassing: postureQueries.every((q) => q.isPassing),
        postureQueries,
      },
    ],
  };
}

const envelope = (data: unknown, meta: Record<string, unknown> = {}) => ({ data, meta });
const error = (code: string, message: string) => ({ error: { code, message }, meta: {} });

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text ? JSON.parse(text) : undefined);
      } catch {
        resolve(text);
      }
    });
  });
}

export class RecordingController {
  readonly requests: RecordedRequest[] = [];
  services: ServiceDetail[] = [];
  /** What POST /posture-response answers (the services an ENDPOINT_STATE put into grace). */
  endpointStateReply: {
    id: string;
    name: string;
    postureQueryType: string;
    timeout: number;
    timeoutRemaining: number;
  }[] = [];
  private changeAt = 1;
  private waiters: { match: (r: RecordedRequest) => boolean; resolve: (r: RecordedRequest) => void }[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<RecordingController> {
    const created: { controller?: RecordingController } = {};
    const server = createServer(
      (req, res) =>
        void created.controller!.handle(req).then(({ status, body }) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    created.controller = new RecordingController(
      server,
      `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    );
    return created.controller;
  }

  /** Replaces the service list; the next service-updates poll reports the change. */
  setServices(services: ServiceDetail[]): void {
    this.services = services;
    this.changeAt++;
  }

  /** Resolves with the first request (already recorded or still to come) that matches. */
  waitFor(match: (r: RecordedRequest) => boolean, timeoutMs = 5_000): Promise<RecordedRequest> {
    const seen = this.requests.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no matching request arrived')), timeoutMs);
      this.waiters.push({ match, resolve: (r) => (clearTimeout(timer), resolve(r)) });
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const url = new URL(req.url ?? '/', this.url);
    const path = url.pathname.startsWith(PREFIX) ? url.pathname.slice(PREFIX.length) : url.pathname;
    const record = { method: req.method ?? 'GET', path, body: await readBody(req) };
    this.requests.push(record);
    this.waiters = this.waiters.filter((w) => (w.match(record) ? (w.resolve(record), false) : true));
    return this.answer(record);
  }

  private answer({ method, path, body }: RecordedRequest): { status: number; body: unknown } {
    const session = {
      id: 'api-session-1',
      token: 'token-1',
      identityId: 'identity-1',
      identity: { id: 'identity-1', name: 'alice' },
      authQueries: [],
      isMfaRequired: false,
      isMfaComplete: true,
      createdAt: STAMP,
      updatedAt: STAMP,
    };
    const route = `${method} ${path}`;
    switch (route) {
      case 'POST /authenticate':
      case 'GET /current-api-session':
        return { status: 200, body: envelope(session) };
      case 'DELETE /current-api-session':
        return { status: 200, body: envelope({}) };
      case 'GET /current-identity/mfa':
        return {
          status: 200,
          body: envelope({ id: 'mfa-1', isVerified: true, createdAt: STAMP, updatedAt: STAMP }),
        };
      case 'GET /services':
        return {
          status: 200,
          body: envelope(this.services, {
            pagination: { limit: 500, offset: 0, totalCount: this.services.length },
          }),
        };
      case 'GET /current-api-session/service-updates':
        return {
          status: 200,
          body: envelope({ lastChangeAt: new Date(this.changeAt * 1000).toISOString() }),
        };
      case 'POST /posture-response':
        return { status: 200, body: envelope({ services: this.endpointStateReply }) };
      case 'POST /posture-response-bulk':
        return { status: 200, body: envelope({ services: [] }) };
      case 'POST /authenticate/mfa':
        return (body as { code?: string })?.code === GOOD_CODE
          ? { status: 200, body: envelope({}) }
          : { status: 400, body: error('MFA_INVALID_TOKEN', 'the code is not valid') };
      default:
        return { status: 404, body: error('NOT_FOUND', `${route} is not recorded here`) };
    }
  }
}
