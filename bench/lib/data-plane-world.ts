/**
 * The deployment the data-plane benches measure, four processes as deployed: the controller (with no
 * embedded router), a standalone router enrolled with a one-time token, the echo service, and the bench
 * process as the agent side (the agent's tunnel in-process, its local listener the user's way in).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { connect as tcpConnect, type Socket } from 'node:net';
import type { ClientHttp2Stream } from 'node:http2';
import { spawnController } from '../../test/helpers/controller.js';
import { spawnRouter, type RouterProcess } from '../../test/helpers/router-process.js';
import { Api, CLIENT, MGMT } from '../../test/helpers/api.js';
import { create, publishService } from '../../test/helpers/data-plane-world.js';
import { TunnelManager } from '../../src/agent/tunnel/tunnel-manager.js';
import type { ServiceDetail, SessionDetail } from '../../src/api/services.js';
import { adminOf, spawnListening, tempDir, ADMIN_PASSWORD } from './children.js';

export interface Tunnel {
  /** one user connection through the tunnel, as a duplex the bench writes to and reads from */
  open(): Promise<ClientHttp2Stream | Socket>;
}

export interface BenchDataPlane {
  admin: Api;
  controllerUrl: string;
  /** the user the agent signed in as, granted the echo service */
  user: Api;
  serviceId: string;
  router: RouterProcess;
  echoPort: number;
  /** client → the agent's local listener → HTTP/2 over TLS → router → echo */
  throughAgent: Tunnel;
  /** client → echo, plain loopback TCP */
  direct: Tunnel;
  stop(): Promise<void>;
}

export async function startBenchDataPlane(): Promise<BenchDataPlane> {
  const controllerDir = tempDir('postern-bench-dp-');
  const routerDir = tempDir('postern-bench-router-');
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
    rmSync(controllerDir, { recursive: true, force: true });
    rmSync(routerDir, { recursive: true, force: true });
  };
  try {
    const controller = await spawnController(
      ['--data-dir', controllerDir, '--port', '0', '--no-router', '--log-level', 'warn'],
      { POSTERN_ADMIN_PASSWORD: ADMIN_PASSWORD },
    );
    stops.push(() => controller.stop());
    const admin = await adminOf(controller.url);
    const created = await admin.post(`${MGMT}/edge-routers`, { name: 'bench-router' });
    if (created.status !== 201) throw new Error(`edge router create: ${JSON.stringify(created.body)}`);
    const router = await startRouterProcess(
      controller.url,
      created.body.data.enrollmentToken as string,
      routerDir,
    );
    stops.push(() => router.stop());
    const echo = await spawnListening(join(import.meta.dirname, 'echo-server.ts'));
    stops.push(() => echo.stop());
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
    // The user's path: a TCP connection to the agent's local listener, carried by the agent's tunnel.
    const agentTunnel = new TunnelManager({
      createSession: (id) => dial(user, id) as Promise<SessionDetail>,
      reasonsFor: async () => [],
      socksPort: null,
    });
    stops.push(() => agentTunnel.stop());
    const listed = await user.get(`${CLIENT}/services?configTypes=intercept.v1&limit=500`);
    await agentTunnel.update(listed.body.data as ServiceDetail[]);
    const localPort = Number(agentTunnel.localAddresses().get(serviceName)![0]!.split(':')[1]);
    return {
      admin,
      controllerUrl: controller.url,
      user,
      serviceId,
      router,
      echoPort,
      throughAgent: { open: () => connectTcp(localPort) },
      direct: { open: () => connectTcp(echoPort) },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
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

export async function dial(user: Api, serviceId: string) {
  const res = await user.post(`${CLIENT}/sessions`, { serviceId });
  if (res.status !== 201) throw new Error(`session: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as {
    id: string;
    token: string;
    edgeRouters: { urls: Record<string, string>; fingerprint: string }[];
  };
}

export function connectTcp(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host: '127.0.0.1', port, noDelay: true }, () => resolve(socket));
    socket.once('error', reject);
  });
}
