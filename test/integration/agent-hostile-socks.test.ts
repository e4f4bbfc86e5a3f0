/**
 * The headless agent (`src/agent/cli.ts run`, a child process) against the seven bytes that used to crash it:
 * `05 01 00 05 01 00 03` sent to its SOCKS5 port (a valid greeting, then a domain-name request cut before its
 * length byte). Two tunnels are open through it at the time, one through the service's local port and one
 * through SOCKS5. The agent stays up, both tunnels keep carrying, a new one opens, and the bad connection is
 * closed by the agent (its handshake bound), nothing else.
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../helpers/api.js';
import {
  closeServer,
  create,
  echoServer,
  publishService,
  startWorld,
  stopWorld,
  type World,
} from '../helpers/data-plane-world.js';
import { unique } from '../helpers/posture-world.js';
import { startAgentRun, type AgentProcess } from '../helpers/reliability-agent-process.js';

const SEVEN_BYTES = Buffer.from([0x05, 0x01, 0x00, 0x05, 0x01, 0x00, 0x03]);

function read(socket: Socket, bytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let got = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      if (got.length < bytes) return;
      socket.off('data', onData);
      resolve(got);
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`closed after ${got.length} of ${bytes} bytes`)));
  });
}

async function opened(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return socket;
}

/** Sends random bytes and expects the echo service's copy back, through whatever `socket` is a tunnel to. */
async function carries(socket: Socket): Promise<void> {
  const data = randomBytes(4096);
  socket.write(data);
  expect((await read(socket, data.length)).equals(data)).toBe(true);
}

describe.runIf(process.platform === 'linux')('the agent process against a hostile SOCKS5 client', () => {
  let world: World;
  let echo: Awaited<ReturnType<typeof echoServer>>;
  let agent: AgentProcess | undefined;
  let serviceName: string;
  let servicePort: number;
  let socksPort: number;
  let socksTarget: Buffer;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    world = await startWorld();
    echo = await echoServer();
    const tag = unique('socks');
    const published = await publishService(world.admin, echo.port, { attribute: `${tag}-svc` });
    serviceName = published.name;
    await create(world.admin, 'service-policies', {
      name: `${tag}-dial`,
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [`#${tag}-user`],
      serviceRoles: [`#${tag}-svc`],
    });
    await createUser(world.admin, `${tag}-user`, 'user-password', { roleAttributes: [`${tag}-user`] });
    agent = startAgentRun({
      controllerUrl: world.url,
      username: `${tag}-user`,
      password: 'user-password',
      socksPort: 0,
    });
    const socks = /socks5: listening on 127\.0\.0\.1:(\d+)/;
    const local = new RegExp(`tunnel ${serviceName}: listening on 127\\.0\\.0\\.1:(\\d+)`);
    await agent.waitFor(socks, 60_000);
    await agent.waitFor(local, 60_000);
    socksPort = Number(socks.exec(agent.output())![1]);
    servicePort = Number(local.exec(agent.output())![1]);
    const host = Buffer.from(`${serviceName}.internal`);
    socksTarget = Buffer.concat([
      Buffer.from([0x05, 0x01, 0x00, 0x05, 0x01, 0x00, 0x03, host.length]),
      host,
      Buffer.from([echo.port >> 8, echo.port & 0xff]),
    ]);
  }, 120_000);

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await agent?.stop('SIGKILL');
    if (echo) await closeServer(echo.server, echo.sockets);
    if (world) await stopWorld(world);
  });

  async function socksTunnel(): Promise<Socket> {
    const socket = await opened(socksPort);
    sockets.push(socket);
    socket.write(socksTarget);
    const answer = await read(socket, 12);
    expect([...answer.subarray(0, 4)]).toEqual([0x05, 0x00, 0x05, 0x00]);
    return socket;
  }

  it('stays up, keeps both tunnels carrying and closes only the bad connection', async () => {
    const local = await opened(servicePort);
    sockets.push(local);
    await carries(local);
    const viaSocks = await socksTunnel();
    await carries(viaSocks);

    const bad = await opened(socksPort);
    sockets.push(bad);
    const badClosed = new Promise<void>((resolve) => bad.once('close', () => resolve()));
    bad.write(SEVEN_BYTES);
    // The greeting was valid, so it is answered; the request is still arriving as far as the agent knows.
    expect([...(await read(bad, 2))]).toEqual([0x05, 0x00]);

    await carries(local);
    await carries(viaSocks);
    await carries(await socksTunnel());
    expect(agent!.child.exitCode, agent!.output()).toBeNull();

    // The agent gives up on the unfinished request after its handshake bound (10 s) and closes it.
    bad.resume();
    await badClosed;
    await carries(local);
    await carries(viaSocks);
    expect(agent!.child.exitCode, agent!.output()).toBeNull();
    expect(agent!.child.signalCode).toBeNull();
    expect(agent!.output()).not.toMatch(/RangeError|ERR_OUT_OF_RANGE/);
  }, 60_000);
});
