/**
 * OpenZiti's host.v1 forwarding through Postern's data plane, on real parts: a controller with its embedded
 * router, TCP servers on three loopback addresses, and the agent's `run` process with SOCKS5. The service's
 * host.v1 forwards address and port within 127.0.0.0/24 and two ports: a SOCKS5 client reaches each server at
 * the address and port it asked for; a destination outside the allowed lists is refused (the agent says why,
 * the router logs it) and nothing reaches it. A host.v1 that breaks OpenZiti's rules is refused by the
 * management API naming the field.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MGMT, createUser } from '../helpers/api.js';
import { create, startWorld, stopWorld, waitFor, type World } from '../helpers/data-plane-world.js';
import { unique } from '../helpers/posture-world.js';
import { startAgentRun, type AgentProcess } from '../helpers/reliability-agent-process.js';

/** A server that greets each connection with its own name, so a client knows which one it reached. */
async function namedServer(name: string, host: string, port = 0) {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.on('error', () => undefined);
    socket.end(`${name}\n`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    server,
    name,
    host,
    port: (server.address() as { port: number }).port,
    connections: () => connections,
  };
}

function readAll(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.once('close', () => resolve(text));
  });
}

/** A SOCKS5 CONNECT to an IPv4 address: the reply code, and what the tunnel carried until it closed. */
async function socksConnect(socksPort: number, address: string, port: number) {
  const socket = connect(socksPort, '127.0.0.1');
  socket.on('error', () => undefined);
  const all = readAll(socket);
  socket.write(
    Buffer.from([
      0x05,
      0x01,
      0x00,
      0x05,
      0x01,
      0x00,
      0x01,
      ...address.split('.').map(Number),
      port >> 8,
      port & 0xff,
    ]),
  );
  const received = await all;
  const bytes = Buffer.from(received, 'latin1');
  // Greeting answer (2 bytes), then the reply: VER REP RSV ATYP BND.ADDR BND.PORT (10 bytes), then data.
  return { reply: bytes[3], carried: received.slice(12) };
}

describe.runIf(process.platform === 'linux')('host.v1 forwarding through the agent and the router', () => {
  let world: World;
  let agent: AgentProcess | undefined;
  let socksPort: number;
  let serviceName: string;
  const routerLog = new PassThrough();
  let routerLines = '';
  routerLog.on('data', (chunk: Buffer) => (routerLines += chunk.toString()));
  const servers: Server[] = [];
  let first: Awaited<ReturnType<typeof namedServer>>;
  let second: Awaited<ReturnType<typeof namedServer>>;
  let outsideAddress: Awaited<ReturnType<typeof namedServer>>;
  let outsidePort: Awaited<ReturnType<typeof namedServer>>;

  beforeAll(async () => {
    world = await startWorld({ config: { logLevel: 'warn' }, routerLog });
    first = await namedServer('first', '127.0.0.1');
    second = await namedServer('second', '127.0.0.2');
    // Outside the allowed addresses (127.0.1.1 is not in 127.0.0.0/24) at an allowed port.
    outsideAddress = await namedServer('outside-address', '127.0.1.1', first.port);
    // Inside the allowed addresses at a port outside the allowed ranges.
    outsidePort = await namedServer('outside-port', '127.0.0.1');
    servers.push(first.server, second.server, outsideAddress.server, outsidePort.server);

    const tag = unique('fwd');
    serviceName = `${tag}-svc`;
    const intercept = await create(world.admin, 'configs', {
      name: `${tag}-intercept`,
      configTypeId: 'intercept.v1',
      data: { protocols: ['tcp'], addresses: ['127.0.0.0/16'], portRanges: [{ low: 1024, high: 65535 }] },
    });
    const host = await create(world.admin, 'configs', {
      name: `${tag}-host`,
      configTypeId: 'host.v1',
      data: {
        protocol: 'tcp',
        forwardAddress: true,
        allowedAddresses: ['127.0.0.0/24'],
        forwardPort: true,
        allowedPortRanges: [
          { low: first.port, high: first.port },
          { low: second.port, high: second.port },
        ],
      },
    });
    const serviceId = await create(world.admin, 'services', {
      name: serviceName,
      configs: [intercept, host],
    });
    await create(world.admin, 'service-policies', {
      name: `${tag}-dial`,
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [`#${tag}-user`],
      serviceRoles: [`@${serviceId}`],
    });
    await createUser(world.admin, `${tag}-user`, 'user-password', { roleAttributes: [`${tag}-user`] });
    agent = startAgentRun({
      controllerUrl: world.url,
      username: `${tag}-user`,
      password: 'user-password',
      socksPort: 0,
    });
    const socks = /socks5: listening on 127\.0\.0\.1:(\d+)/;
    await agent.waitFor(socks, 60_000);
    await agent.waitFor(new RegExp(`tunnel ${serviceName}: listening on`), 60_000);
    socksPort = Number(socks.exec(agent.output())![1]);
  }, 120_000);

  afterAll(async () => {
    await agent?.stop('SIGKILL');
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    if (world) await stopWorld(world);
  });

  it('reaches each server at the address and port the SOCKS5 client asked for', async () => {
    expect(await socksConnect(socksPort, '127.0.0.1', first.port)).toEqual({ reply: 0, carried: 'first\n' });
    expect(await socksConnect(socksPort, '127.0.0.2', second.port)).toEqual({
      reply: 0,
      carried: 'second\n',
    });
    expect(first.connections()).toBe(1);
    expect(second.connections()).toBe(1);
  });

  it('refuses a destination outside the allowed addresses or ports: the agent says why, the router logs it', async () => {
    const refusedAddress = await socksConnect(socksPort, '127.0.1.1', first.port);
    expect(refusedAddress.reply).not.toBe(0);
    expect(refusedAddress.carried).toBe('');
    await agent!.waitFor(
      new RegExp(
        `tunnel ${serviceName}: refused: .*does not allow.*127\\.0\\.1\\.1 is not in allowedAddresses`,
      ),
      30_000,
    );
    await waitFor(
      () => /stream refused: destination not allowed/.test(routerLines),
      30_000,
      'the router log line',
    );
    const line = JSON.parse(
      routerLines.split('\n').find((l) => l.includes('destination not allowed'))!,
    ) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 40,
      role: 'router',
      service: serviceName,
      asked: `127.0.1.1:${first.port}/tcp`,
      reason: '127.0.1.1 is not in allowedAddresses',
    });

    const refusedPort = await socksConnect(socksPort, '127.0.0.1', outsidePort.port);
    expect(refusedPort.reply).not.toBe(0);
    await agent!.waitFor(
      new RegExp(`refused: .*port ${outsidePort.port} is not in allowedPortRanges`),
      30_000,
    );
    expect(outsideAddress.connections()).toBe(0);
    expect(outsidePort.connections()).toBe(0);
  });

  it('refuses a host.v1 that breaks OpenZiti’s rules, naming the field, and creates nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ protocol: 'tcp', forwardAddress: true, port: 80 }, 'data.allowedAddresses'],
      [{ protocol: 'tcp', address: '10.0.0.1', forwardPort: true }, 'data.allowedPortRanges'],
      [{ address: '10.0.0.1', port: 80 }, 'data.protocol'],
      [{ protocol: 'tcp', forwardAddress: false, address: '10.0.0.1', port: 80 }, 'data.forwardAddress'],
      [
        { protocol: 'tcp', forwardAddress: true, allowedAddresses: [''], port: 80 },
        'data.allowedAddresses[0]',
      ],
    ];
    for (const [data, field] of cases) {
      const name = unique('bad-host');
      const res = await world.admin.post(`${MGMT}/configs`, { name, configTypeId: 'host.v1', data });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.code).toBe('COULD_NOT_VALIDATE');
      expect(res.body.error.cause.field, JSON.stringify(res.body)).toBe(field);
      const listed = await world.admin.get(`${MGMT}/configs?filter=${encodeURIComponent(`name="${name}"`)}`);
      expect(listed.body.data).toEqual([]);
    }
  });
});
