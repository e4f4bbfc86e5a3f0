/**
 * The data plane's figures, each against a baseline in the same run: tunnel throughput ÷ direct loopback TCP
 * to the same echo service, connection setup through a warm router connection (p50/p99), the time until the
 * last of one session's live tunnels (as many as it may have: 500) is cut after a revocation, and router memory
 * per idle tunnel at 10,000 tunnels (spread over as many sign-ins and identities as the stream caps need).
 *
 * Four processes, as deployed: the controller (with no embedded router), a standalone router enrolled with a
 * one-time token, the echo service, and this bench as the agent side.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { connect as tcpConnect, type Socket } from 'node:net';
import type { ClientHttp2Session, ClientHttp2Stream } from 'node:http2';
import { spawnController } from '../test/helpers/controller.js';
import { spawnRouter } from '../test/helpers/router-process.js';
import { CLIENT, MGMT } from '../test/helpers/api.js';
import { create, openStream, publishService, routerSession } from '../test/helpers/data-plane-world.js';
import { MAX_STREAMS_PER_IDENTITY, MAX_STREAMS_PER_SESSION } from '../src/api/data-plane.js';
import { Api } from '../test/helpers/api.js';
import { adminOf, spawnListening, tempDir, ADMIN_PASSWORD } from './lib/children.js';
import { figure, percentile, type Figure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { rssMiB, sleep } from './lib/proc-stats.js';
import { TunnelManager } from '../src/agent/tunnel/tunnel-manager.js';
import type { ServiceDetail, SessionDetail } from '../src/api/services.js';

interface Tunnel {
  /** one user connection through the tunnel, as a duplex the bench writes to and reads from */
  open(): Promise<ClientHttp2Stream | Socket>;
}

export async function dataPlaneFigures(options: BenchOptions): Promise<Figure[]> {
  const controllerDir = tempDir('postern-bench-dp-');
  const routerDir = tempDir('postern-bench-router-');
  const controller = await spawnController(
    ['--data-dir', controllerDir, '--port', '0', '--no-router', '--log-level', 'warn'],
    {
      POSTERN_ADMIN_PASSWORD: ADMIN_PASSWORD,
    },
  );
  const children: { stop(): Promise<unknown> }[] = [controller];
  try {
    const admin = await adminOf(controller.url);
    const created = await admin.post(`${MGMT}/edge-routers`, { name: 'bench-router' });
    if (created.status !== 201) throw new Error(`edge router create: ${JSON.stringify(created.body)}`);
    const router = await startRouterProcess(
      controller.url,
      created.body.data.enrollmentToken as string,
      routerDir,
    );
    children.push(router);
    const echo = await spawnListening(join(import.meta.dirname, 'lib', 'echo-server.ts'));
    children.push(echo);
    const echoPort = Number(new URL(echo.url).port);

    const { serviceId, name: serviceName } = await publishService(admin, echoPort, { attribute: 'bench' });
    await create(admin, 'service-policies', {
      name: 'bench-dial',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: ['#bench-users'],
      serviceRoles: ['#bench'],
    });
    const userId = await create(admin, 'identities', {
      name: 'bench-user',
      type: 'User',
      isAdmin: false,
      roleAttributes: ['bench-users'],
    });
    await create(admin, 'authenticators', {
      method: 'updb',
      identityId: userId,
      username: 'bench-user',
      password: 'bench-password',
    });
    const user = new Api(controller.url);
    if ((await user.login('bench-user', 'bench-password', CLIENT)).status !== 200)
      throw new Error('user login failed');
    // The router connection the revocation rounds open their streams on.
    const first = (await dial(user, serviceId)).edgeRouters[0]!;
    const h2 = await routerSession(first.urls.tls!, first.fingerprint);
    // The user's path: a TCP connection to the agent's local listener, carried by the agent's tunnel.
    const agentTunnel = new TunnelManager({
      createSession: (id) => dial(user, id) as Promise<SessionDetail>,
      reasonsFor: async () => [],
      socksPort: null,
    });
    const listed = await user.get(`${CLIENT}/services?configTypes=intercept.v1&limit=500`);
    await agentTunnel.update(listed.body.data as ServiceDetail[]);
    const localPort = Number(agentTunnel.localAddresses().get(serviceName)![0]!.split(':')[1]);
    const throughAgent: Tunnel = { open: () => connectTcp(localPort) };
    const direct: Tunnel = { open: () => connectTcp(echoPort) };

    const figures: Figure[] = [];
    try {
      figures.push(await throughputFigure(throughAgent, direct, options));
      figures.push(...(await setupFigures(throughAgent, direct, options)));
      figures.push(await revocationFigure(user, serviceId, h2, options));
      const many = await capacityStreams(admin, controller.url, serviceId, memoryTunnels(options));
      try {
        figures.push(await memoryFigure(router.pid, many, options));
      } finally {
        many.close();
      }
    } finally {
      await agentTunnel.stop();
      h2.destroy();
    }
    return figures;
  } finally {
    for (const child of children.reverse()) await child.stop().catch(() => undefined);
    rmSync(controllerDir, { recursive: true, force: true });
    rmSync(routerDir, { recursive: true, force: true });
  }
}

function startRouterProcess(controllerUrl: string, token: string, dataDir: string) {
  return spawnRouter([
    '--controller',
    controllerUrl,
    '--enroll',
    token,
    '--data-dir',
    dataDir,
    '--port',
    '0',
    '--log-level',
    'warn',
  ]);
}

async function dial(user: Api, serviceId: string) {
  const res = await user.post(`${CLIENT}/sessions`, { serviceId });
  if (res.status !== 201) throw new Error(`session: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as {
    id: string;
    token: string;
    edgeRouters: { urls: Record<string, string>; fingerprint: string }[];
  };
}

function connectTcp(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host: '127.0.0.1', port, noDelay: true }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Echo throughput: write `bytes` while reading them back; MiB/s of payload. */
async function echoMiBps(tunnel: Tunnel, bytes: number): Promise<number> {
  const stream = await tunnel.open();
  const chunk = Buffer.alloc(256 * 1024, 7);
  const started = performance.now();
  const done = new Promise<void>((resolve) => {
    let received = 0;
    stream.on('data', (c: Buffer) => {
      received += c.length;
      if (received >= bytes) resolve();
    });
  });
  for (let sent = 0; sent < bytes; sent += chunk.length)
    if (!stream.write(chunk)) await new Promise((r) => stream.once('drain', r));
  await done;
  const seconds = (performance.now() - started) / 1000;
  stream.destroy();
  return bytes / (1024 * 1024) / seconds;
}

async function throughputFigure(tunnel: Tunnel, direct: Tunnel, options: BenchOptions): Promise<Figure> {
  const bytes = (options.quick ? 64 : 256) * 1024 * 1024;
  const rounds = options.quick ? 1 : 3;
  const through: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < rounds; i++) {
    baseline.push(await echoMiBps(direct, bytes));
    through.push(await echoMiBps(tunnel, bytes));
  }
  return figure({
    name: 'tunnel.throughput',
    label: 'tunnel echo throughput',
    value: percentile(through, 50),
    unit: 'MiB/s',
    baseline: percentile(baseline, 50),
    baselineLabel: 'direct loopback TCP to the same echo service',
    target: { ratioMin: 0.5 },
    note: `${bytes / 1024 / 1024} MiB echoed per round, median of ${rounds}; client → agent's local listener → one HTTP/2 stream over TLS → standalone router → echo service`,
  });
}

async function firstEcho(tunnel: Tunnel): Promise<number> {
  const started = performance.now();
  const stream = await tunnel.open();
  await new Promise<void>((resolve) => {
    stream.once('data', () => resolve());
    stream.write('x');
  });
  const ms = performance.now() - started;
  stream.destroy();
  return ms;
}

async function setupFigures(tunnel: Tunnel, direct: Tunnel, options: BenchOptions): Promise<Figure[]> {
  const count = options.quick ? 100 : 500;
  const through: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < count; i++) {
    baseline.push(await firstEcho(direct));
    through.push(await firstEcho(tunnel));
  }
  const note = `${count} sequential connections to the agent's local listener, each until its first echoed byte; warm TLS connection to the router, warm session`;
  return [
    figure({
      name: 'tunnel.connect.p50',
      label: 'tunnel connection setup p50',
      value: percentile(through, 50),
      unit: 'ms',
      baseline: percentile(baseline, 50),
      baselineLabel: 'direct loopback TCP connect + first echo',
      note,
    }),
    figure({
      name: 'tunnel.connect.p99',
      label: 'tunnel connection setup p99',
      value: percentile(through, 99),
      unit: 'ms',
      baselineLabel: 'ratio is to the target',
      target: { valueMax: 10 },
      note,
    }),
  ];
}

async function revocationFigure(
  user: Api,
  serviceId: string,
  h2: ClientHttp2Session,
  options: BenchOptions,
): Promise<Figure> {
  const tunnels = options.quick ? 200 : MAX_STREAMS_PER_SESSION;
  const rounds = options.quick ? 1 : 3;
  const lastClosed: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const session = await dial(user, serviceId);
    const streams = await Promise.all(
      Array.from({ length: tunnels }, async () => {
        const opened = await openStream(h2, session.token, serviceId);
        if (opened.status !== 200) throw new Error(`stream refused: ${opened.error}`);
        return opened.stream;
      }),
    );
    const closes = streams.map(
      (s) => new Promise<number>((resolve) => s.once('close', () => resolve(performance.now()))),
    );
    const started = performance.now();
    // The narrowest revocation: the session deleted; every other cause reaches the router the same way.
    const res = await user.delete(`${CLIENT}/sessions/${session.id}`);
    if (res.status !== 200) throw new Error(`session delete: ${res.status}`);
    const ends = await Promise.all(closes);
    lastClosed.push(Math.max(...ends) - started);
    await sleep(200);
  }
  return figure({
    name: 'tunnel.revocation.last-closed',
    label: `revocation: last of ${tunnels} live tunnels closed`,
    value: percentile(lastClosed, 99),
    unit: 'ms',
    baselineLabel: 'ratio is to the target',
    target: { valueMax: 1000 },
    note: `from the DELETE request until the last stream closed at the client, worst of ${rounds} rounds`,
  });
}

const memoryTunnels = (options: BenchOptions) => (options.quick ? 2000 : 10_000);

/**
 * Streams straight to the router for `count` tunnels: the stream caps allow 500 per edge session and 2,000 per
 * identity, so this signs in as many bench identities as it takes, each on several "devices" (API sessions),
 * each identity on its own connection (which carries up to 2,000 streams).
 */
async function capacityStreams(
  admin: Api,
  url: string,
  serviceId: string,
  count: number,
): Promise<Tunnel & { close(): void }> {
  const slots: { h2: ClientHttp2Session; token: string; left: number }[] = [];
  const connections: ClientHttp2Session[] = [];
  for (let planned = 0, n = 0; planned < count; n++) {
    const name = `bench-capacity-${n}`;
    const identityId = await create(admin, 'identities', {
      name,
      type: 'User',
      isAdmin: false,
      roleAttributes: ['bench-users'],
    });
    await create(admin, 'authenticators', {
      method: 'updb',
      identityId,
      username: name,
      password: 'bench-password',
    });
    let h2: ClientHttp2Session | undefined;
    for (let d = 0; d < MAX_STREAMS_PER_IDENTITY / MAX_STREAMS_PER_SESSION && planned < count; d++) {
      const device = new Api(url);
      if ((await device.login(name, 'bench-password', CLIENT)).status !== 200)
        throw new Error('login failed');
      const session = await dial(device, serviceId);
      if (!h2) {
        h2 = await routerSession(session.edgeRouters[0]!.urls.tls!, session.edgeRouters[0]!.fingerprint);
        connections.push(h2);
      }
      const left = Math.min(MAX_STREAMS_PER_SESSION, count - planned);
      slots.push({ h2, token: session.token, left });
      planned += left;
    }
  }
  return {
    async open() {
      const slot = slots.find((s) => s.left > 0);
      if (!slot) throw new Error('more streams than planned');
      slot.left--;
      const opened = await openStream(slot.h2, slot.token, serviceId);
      if (opened.status !== 200) throw new Error(`stream refused: ${opened.status} ${opened.error}`);
      return opened.stream;
    },
    close: () => connections.forEach((c) => c.destroy()),
  };
}

async function memoryFigure(routerPid: number, tunnel: Tunnel, options: BenchOptions): Promise<Figure> {
  const count = memoryTunnels(options);
  await sleep(1000);
  const before = rssMiB(routerPid);
  const open: (ClientHttp2Stream | Socket)[] = [];
  for (let i = 0; i < count; i += 500)
    open.push(...(await Promise.all(Array.from({ length: Math.min(500, count - i) }, () => tunnel.open()))));
  await sleep(2000);
  const after = rssMiB(routerPid);
  for (const s of open) s.destroy();
  return figure({
    name: 'router.memory-per-idle-tunnel',
    label: `router memory per idle tunnel at ${count} tunnels`,
    value: ((after - before) * 1024) / count,
    unit: 'KiB',
    baselineLabel: 'ratio is to the target',
    target: { valueMax: 20 },
    note: `router RSS ${before.toFixed(1)} MiB idle, ${after.toFixed(1)} MiB with ${count} open tunnels (each an HTTP/2 stream and a TCP connection to the service)`,
  });
}
