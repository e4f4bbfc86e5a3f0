/**
 * Two standalone edge routers, as an administrator runs them, and a running agent (`run`, a child process)
 * with a tunnel to a real TCP service: the agent says which router carries the service (its events and
 * `status`), and when that router stops (killed) or is disabled (management API), new connections go through
 * the other one at once, with no user action, and the agent says so. Streams on a stopped router die with it.
 */
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, createUser, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, spawnController, tempDir, type ControllerProcess } from '../helpers/controller.js';
import { closeServer, create, echoServer, publishService, waitFor } from '../helpers/data-plane-world.js';
import { startAgentRun, type AgentProcess } from '../helpers/reliability-agent-process.js';
import { spawnRouter, type RouterProcess } from '../helpers/router-process.js';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'agent', 'cli.ts');
const dir = tempDir('postern-router-failover-');
const agentDir = join(dir, 'agent');
const SERVICE = `failover-${process.pid}`;
let controller: ControllerProcess;
let admin: Api;
const routers: Record<string, RouterProcess | undefined> = {};
const routerIds: Record<string, string> = {};
let agent: AgentProcess;
let localPort = 0;
const echo = echoServer();

/** Starts (first time: enrolls) router `name` (edge-a, edge-b) in its own data folder. */
async function startRouter(name: string, token?: string): Promise<RouterProcess> {
  const args = ['--controller', controller.url, '--data-dir', join(dir, name), '--port', '0'];
  const router = await spawnRouter([...args, '--log-level', 'warn', ...(token ? ['--enroll', token] : [])]);
  routers[name] = router;
  return router;
}

async function isOnline(name: string): Promise<boolean> {
  const res = await admin.get(`${MGMT}/edge-routers/${routerIds[name]}`);
  return res.body.data?.isOnline === true;
}

/** One new connection through the agent's local listener: true when the service echoed what was sent. */
function echoesThroughAgent(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(localPort, '127.0.0.1');
    const payload = `hello ${Math.random()}`;
    let got = '';
    const timer = setTimeout(() => finish(false), 20_000);
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    socket.on('connect', () => socket.write(payload));
    socket.on('data', (chunk) => {
      got += chunk.toString();
      if (got === payload) finish(true);
    });
    socket.on('close', () => finish(got === payload));
    socket.on('error', () => finish(false));
  });
}

async function agentStatus(json: boolean): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      ...['--import', 'tsx', CLI, 'status', ...(json ? ['--json'] : [])],
      ...['--controller', controller.url, '--username', 'failover-user'],
      ...['--credential-store', 'memory', '--config-dir', agentDir],
    ],
    { env: { ...process.env, POSTERN_PASSWORD: 'failover-password', NO_COLOR: '1' } },
  ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return stdout;
}

beforeAll(async () => {
  controller = await spawnController(['--data-dir', join(dir, 'controller'), '--port', '0', '--no-router'], {
    POSTERN_ADMIN_PASSWORD: ADMIN_PASSWORD,
  });
  admin = new Api(controller.url);
  expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
  // edge-a is the cheaper one: it carries while both are up.
  for (const [name, cost] of [
    ['edge-a', 1],
    ['edge-b', 50],
  ] as const) {
    const res = await admin.post(`${MGMT}/edge-routers`, { name, cost });
    expect(res.status).toBe(201);
    routerIds[name] = res.body.data.id as string;
    await startRouter(name, res.body.data.enrollmentToken as string);
  }
  await waitFor(async () => (await isOnline('edge-a')) && (await isOnline('edge-b')), 20_000, 'both linked');

  const { port } = await echo;
  await publishService(admin, port, { name: SERVICE, attribute: 'failover' });
  await create(admin, 'service-policies', {
    name: `${SERVICE}-dial`,
    type: 'Dial',
    semantic: 'AnyOf',
    identityRoles: ['#failover-staff'],
    serviceRoles: ['#failover'],
  });
  await createUser(admin, 'failover-user', 'failover-password', { roleAttributes: ['failover-staff'] });
  agent = startAgentRun({
    controllerUrl: controller.url,
    username: 'failover-user',
    password: 'failover-password',
    socksPort: 0,
    configDir: agentDir,
  });
  const listening = new RegExp(`tunnel ${SERVICE}: listening on 127\\.0\\.0\\.1:(\\d+)`);
  localPort = Number(listening.exec(await agent.waitFor(listening, 60_000))![1]);
}, 120_000);

afterAll(async () => {
  await agent?.stop();
  for (const router of Object.values(routers)) await router?.stop();
  await controller?.stop();
  const { server, sockets } = await echo;
  await closeServer(server, sockets);
  rmSync(dir, { recursive: true, force: true });
});

describe('an agent moving between two standalone routers', () => {
  it('carries through the cheaper router and says which, in run and in status', async () => {
    expect(await agentStatus(false)).toContain(`${SERVICE}: not connected yet`);
    expect(await echoesThroughAgent()).toBe(true);
    await agent.waitFor(new RegExp(`tunnel ${SERVICE}: carried by edge-a\\n`));
    expect(await agentStatus(false)).toMatch(new RegExp(`${SERVICE}: via edge-a \\(tls://`));
    const json = JSON.parse((await agentStatus(true)).trim().split('\n').pop()!) as {
      routers: Record<string, { name: string } | null>;
    };
    expect(json.routers[SERVICE]?.name).toBe('edge-a');
  });

  it('moves to the other router when the carrying one is killed, and says so', async () => {
    const from = agent.output().length;
    process.kill(routers['edge-a']!.pid, 'SIGKILL');
    await routers['edge-a']!.stop();
    routers['edge-a'] = undefined;
    // The console's ONLINE column follows the link: down once the process is gone.
    await waitFor(async () => !(await isOnline('edge-a')), 15_000, 'edge-a shown offline');
    // The very next connection works: no user action, no failed first try.
    expect(await echoesThroughAgent()).toBe(true);
    await agent.waitFor(new RegExp(`tunnel ${SERVICE}: carried by edge-b \\(was edge-a\\)`), 10_000, from);
    expect(await echoesThroughAgent()).toBe(true);
    expect(await agentStatus(false)).toMatch(new RegExp(`${SERVICE}: via edge-b`));
  });

  it('moves back when the carrying router is disabled and the other is up again (on a new port)', async () => {
    // edge-a comes back on another port than the one the agent's session named.
    await startRouter('edge-a');
    await waitFor(() => isOnline('edge-a'), 20_000, 'edge-a linked again');
    const from = agent.output().length;
    const bOutput = routers['edge-b']!.output().length;
    const res = await admin.patch(`${MGMT}/edge-routers/${routerIds['edge-b']}`, { disabled: true });
    expect(res.status).toBe(200);
    // edge-b learns it is no longer allowed and refuses from then on
    await waitFor(
      () => routers['edge-b']!.output().slice(bOutput).includes('no longer allows this router'),
      20_000,
      'edge-b told it is disabled',
    );
    expect(await echoesThroughAgent()).toBe(true);
    await agent.waitFor(new RegExp(`tunnel ${SERVICE}: carried by edge-a \\(was edge-b\\)`), 10_000, from);
  });
});
