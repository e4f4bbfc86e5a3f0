/**
 * The data plane's figures, each against a baseline in the same run: connection setup through a warm router
 * connection (p50/p99) against direct loopback TCP, the time until the last of one session's live tunnels
 * (as many as it may have: 500) is cut after a revocation, and router memory per idle tunnel at 10,000
 * tunnels (spread over as many sign-ins and identities as the stream caps need). Throughput has its own
 * bench (tunnel-throughput.ts) on the same deployment (lib/data-plane-world.ts).
 */
import type { Socket } from 'node:net';
import type { ClientHttp2Session, ClientHttp2Stream } from 'node:http2';
import { CLIENT } from '../test/helpers/api.js';
import { create, openStream, routerSession } from '../test/helpers/data-plane-world.js';
import { MAX_STREAMS_PER_IDENTITY, MAX_STREAMS_PER_SESSION } from '../src/api/data-plane.js';
import { Api } from '../test/helpers/api.js';
import { dial, startBenchDataPlane, type Tunnel } from './lib/data-plane-world.js';
import { figure, percentile, type Figure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { rssMiB, sleep } from './lib/proc-stats.js';

export async function dataPlaneFigures(options: BenchOptions): Promise<Figure[]> {
  const world = await startBenchDataPlane();
  try {
    const { user, serviceId } = world;
    // The router connection the revocation rounds open their streams on.
    const first = (await dial(user, serviceId)).edgeRouters[0]!;
    const h2 = await routerSession(first.urls.tls!, first.fingerprint);
    const figures: Figure[] = [];
    try {
      figures.push(...(await setupFigures(world.throughAgent, world.direct, options)));
      figures.push(await revocationFigure(user, serviceId, h2, options));
      const many = await capacityStreams(world.admin, world.controllerUrl, serviceId, memoryTunnels(options));
      try {
        figures.push(await memoryFigure(world.router.pid, many, options));
      } finally {
        many.close();
      }
    } finally {
      h2.destroy();
    }
    return figures;
  } finally {
    await world.stop();
  }
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
