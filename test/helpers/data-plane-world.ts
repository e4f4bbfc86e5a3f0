/**
 * The data plane under test: a real controller with its embedded router (real TLS, real HTTP/2, real SQLite),
 * real TCP services behind it, and a small router client that speaks the stream protocol with the
 * fingerprint pinned, as the agent does. Used by the router, revocation and tunnel tests.
 */
import { testConfig } from './test-database.js';
import { createHash, randomBytes } from 'node:crypto';
import { connect as h2connect, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { createServer, type Server, type Socket } from 'node:net';
import { rmSync } from 'node:fs';
import { connect as tlsConnect } from 'node:tls';
import { expect } from 'vitest';
import { normaliseFingerprint } from '../../src/api/data-plane.js';
import { startBundle, type RunningBundle } from '../../server/bundle.js';
import type { ControllerConfig } from '../../controller/config.js';
import { Api, CLIENT, MGMT, createUser } from './api.js';
import { ADMIN_PASSWORD, tempDir } from './controller.js';
import { unique } from './posture-world.js';

export interface World {
  bundle: RunningBundle;
  dataDir: string;
  admin: Api;
  url: string;
}

export async function startWorld(
  options: {
    graceSeconds?: number;
    config?: Partial<ControllerConfig>;
    routerPort?: number;
    /** where the embedded router's log lines go (at the config's logLevel) */
    routerLog?: NodeJS.WritableStream;
  } = {},
): Promise<World> {
  const dataDir = options.config?.dataDir ?? tempDir('postern-dp-');
  const config = await testConfig(dataDir, options.config);
  const bundle = await startBundle(config, {
    adminPassword: ADMIN_PASSWORD,
    router: { enabled: true, graceSeconds: options.graceSeconds ?? 30, port: options.routerPort },
    logDestination: options.routerLog,
  });
  const admin = new Api(bundle.controller.url);
  expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
  await waitFor(() => bundle.router!.link.isUp, 5000, 'router link up');
  return { bundle, dataDir, admin, url: bundle.controller.url };
}

export async function stopWorld(world: World, keepData = false): Promise<void> {
  await world.bundle.close();
  if (!keepData) rmSync(world.dataDir, { recursive: true, force: true });
}

export async function create(admin: Api, collection: string, body: Record<string, unknown>): Promise<string> {
  const res = await admin.post(`${MGMT}/${collection}`, body);
  if (res.status !== 201) throw new Error(`${collection} create failed: ${JSON.stringify(res.body)}`);
  return res.body.data.id as string;
}

/** A service reachable through the router at `127.0.0.1:port`, intercepted as `<name>.internal:<port>`. */
export async function publishService(
  admin: Api,
  port: number,
  options: { attribute?: string; name?: string; host?: boolean } = {},
): Promise<{ serviceId: string; name: string; address: string }> {
  const name = options.name ?? unique('svc');
  const configs = [
    await create(admin, 'configs', {
      name: `${name}-intercept`,
      configTypeId: 'intercept.v1',
      data: { protocols: ['tcp'], addresses: [`${name}.internal`], portRanges: [{ low: port, high: port }] },
    }),
  ];
  if (options.host !== false)
    configs.push(
      await create(admin, 'configs', {
        name: `${name}-host`,
        configTypeId: 'host.v1',
        data: { protocol: 'tcp', address: '127.0.0.1', port },
      }),
    );
  const serviceId = await create(admin, 'services', {
    name,
    roleAttributes: [options.attribute ?? 'apps'],
    configs,
  });
  return { serviceId, name, address: `${name}.internal:${port}` };
}

export interface User {
  id: string;
  name: string;
  api: Api;
  apiSessionId: string;
}

/** A service for `#<tag>-user` behind a DOMAIN check wanting `corp.example` (its checks named after `tag`). */
export async function domainGuarded(
  admin: Api,
  tag: string,
): Promise<{ checkId: string; serviceId: string }> {
  const checkId = await create(admin, 'posture-checks', {
    name: `${tag}-domain`,
    typeId: 'DOMAIN',
    domains: ['corp.example'],
    roleAttributes: [`${tag}-check`],
  });
  const serviceId = await create(admin, 'services', { name: `${tag}-svc`, roleAttributes: [`${tag}-svc`] });
  await create(admin, 'service-policies', {
    name: `${tag}-policy`,
    type: 'Dial',
    semantic: 'AnyOf',
    identityRoles: [`#${tag}-user`],
    serviceRoles: [`#${tag}-svc`],
    postureCheckRoles: [`#${tag}-check`],
  });
  return { checkId, serviceId };
}

export async function signedInUser(world: World, attributes: string[] = ['staff']): Promise<User> {
  const name = unique('user');
  const id = await createUser(world.admin, name, 'user-password', { roleAttributes: attributes });
  const api = world.admin.as(undefined);
  const login = await api.login(name, 'user-password', CLIENT);
  expect(login.status).toBe(200);
  return { id, name, api, apiSessionId: login.body.data.id as string };
}

export interface DialSession {
  id: string;
  token: string;
  serviceId: string;
  edgeRouters: { urls: Record<string, string>; fingerprint: string }[];
}

export async function dialSession(
  user: User,
  serviceId: string,
  type: 'Dial' | 'Bind' = 'Dial',
): Promise<DialSession> {
  const res = await user.api.post(`${CLIENT}/sessions`, { serviceId, type });
  if (res.status !== 201) throw new Error(`session refused (${res.status}): ${JSON.stringify(res.body)}`);
  return res.body.data as DialSession;
}

/** What openLiveTunnel is told: how to tag its names, what to send, and how to reach the router. */
export interface LiveTunnelOptions {
  /** the prefix of the unique tag naming the check, service, policy and user's attribute */
  tagPrefix: string;
  /** how many random bytes the stream is proven with */
  bytes: number;
  /** the echo server the service points at */
  echoPort: number;
  /** the router session to open the stream on: the test's shared one, opened on first use */
  router(url: string, fingerprint: string): Promise<ClientHttp2Session>;
  /** more posture check roles for the policy */
  extraChecks?: string[];
  /** runs after the user passed the DOMAIN check, before it dials */
  beforeDial?: (user: User) => Promise<void>;
}

/** A service behind a DOMAIN check, a user of `world` passing it, and an open, working stream. */
export async function openLiveTunnel(world: World, options: LiveTunnelOptions) {
  const tag = unique(options.tagPrefix);
  const checkId = await create(world.admin, 'posture-checks', {
    name: `${tag}-domain`,
    typeId: 'DOMAIN',
    domains: ['corp.example'],
    roleAttributes: [`${tag}-check`],
  });
  const { serviceId } = await publishService(world.admin, options.echoPort, { attribute: `${tag}-svc` });
  const policyId = await create(world.admin, 'service-policies', {
    name: `${tag}-policy`,
    type: 'Dial',
    semantic: 'AnyOf',
    identityRoles: [`#${tag}-user`],
    serviceRoles: [`#${tag}-svc`],
    postureCheckRoles: [`#${tag}-check`, ...(options.extraChecks ?? [])],
  });
  const user = await signedInUser(world, [`${tag}-user`]);
  const reported = await user.api.post(`${CLIENT}/posture-response`, {
    id: checkId,
    typeId: 'DOMAIN',
    domain: 'corp.example',
  });
  expect(reported.status).toBe(201);
  await options.beforeDial?.(user);
  const session = await dialSession(user, serviceId);
  const h2 = await options.router(session.edgeRouters[0]!.urls.tls!, session.edgeRouters[0]!.fingerprint);
  const opened = await openStream(h2, session.token, serviceId);
  expect(opened.status).toBe(200);
  const data = randomBytes(options.bytes);
  expect(await roundTrip(opened.stream, data)).toBe(sha256(data));
  return { tag, checkId, serviceId, policyId, user, session, stream: opened.stream };
}

/** A TCP server echoing what it gets; counts connections so a test can prove nothing reached it. */
export async function echoServer(): Promise<{
  server: Server;
  port: number;
  connections: () => number;
  sockets: Set<Socket>;
}> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    count++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { server, port, connections: () => count, sockets };
}

export function closeServer(server: Server, sockets?: Set<Socket>): Promise<void> {
  for (const s of sockets ?? []) s.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** One TLS connection to a router, its certificate pinned, as an HTTP/2 session. */
export async function routerSession(url: string, fingerprint: string): Promise<ClientHttp2Session> {
  const { hostname, port } = new URL(url.replace(/^tls:/, 'https:'));
  const host = hostname.replace(/^\[|\]$/g, '');
  const socket = tlsConnect({ host, port: Number(port), ALPNProtocols: ['h2'], rejectUnauthorized: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('error', reject);
  });
  if (
    normaliseFingerprint(socket.getPeerCertificate().fingerprint256) !== normaliseFingerprint(fingerprint)
  ) {
    socket.destroy();
    throw new Error('router certificate does not match the pinned fingerprint');
  }
  const session = h2connect(`https://${host}:${port}`, { createConnection: () => socket });
  session.on('error', () => undefined);
  return session;
}

/** Opens a stream; resolves with it on 200, or with the refusal's status and reason. */
export function openStream(
  session: ClientHttp2Session,
  token: string,
  serviceId: string,
  authority = 'service.postern:443',
  /** more request headers, e.g. the dial protocol a service forwarding it needs (the agent sends `tcp`) */
  headers: Record<string, string> = {},
): Promise<{ status: number; error?: string; stream: ClientHttp2Stream }> {
  const stream = session.request(
    {
      ':method': 'CONNECT',
      ':authority': authority,
      'postern-session-token': token,
      'postern-service-id': serviceId,
      ...headers,
    },
    { endStream: false },
  );
  stream.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    stream.once('response', (headers) =>
      resolve({
        status: Number(headers[':status']),
        error: headers['postern-error'] as string | undefined,
        stream,
      }),
    );
    stream.once('close', () => reject(new Error(`stream closed before a response (code ${stream.rstCode})`)));
  });
}

/** Writes `data`, reads the same number of bytes back, returns their sha256. */
export function roundTrip(stream: ClientHttp2Stream, data: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    let received = 0;
    stream.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      received += chunk.length;
      if (received >= data.length) resolve(hash.digest('hex'));
    });
    stream.once('close', () => {
      if (received < data.length)
        reject(new Error(`stream closed after ${received} of ${data.length} bytes`));
    });
    stream.write(data);
  });
}

export const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** Resolves when `stream` closes; with the milliseconds it took from `since`. */
export function closedWithin(stream: {
  once(event: 'close', fn: () => void): unknown;
  closed?: boolean;
  destroyed?: boolean;
}): Promise<number> {
  const start = performance.now();
  return new Promise((resolve) => {
    if (stream.closed || stream.destroyed) return resolve(0);
    stream.once('close', () => resolve(performance.now() - start));
  });
}

export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
