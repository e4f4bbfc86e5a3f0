/**
 * The agent's tunnel end to end on real parts: a controller with its embedded router, a real HTTP service
 * behind it, and the agent core signed in with proxy mode on. A browser-like client reaches the service at
 * the agent's local address and through SOCKS5 by its intercepted name (curl); a posture change cuts the
 * connection and the next one is refused with the reason; the agent finds the router again after a restart.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { MemoryCredentialStore } from '../../src/agent/credentials/memory-credential-store.js';
import type { TunnelEvent } from '../../src/agent/tunnel/tunnel-events.js';
import { RouterConnector } from '../../src/agent/tunnel/router-connector.js';
import { TunnelManager } from '../../src/agent/tunnel/tunnel-manager.js';
import { startRouter } from '../../edge-router/router.js';
import pino from 'pino';
import { MGMT, createUser } from '../helpers/api.js';
import { ScriptedPromptPort, machineFacts } from '../helpers/agent-setup.js';
import { tempDir } from '../helpers/controller.js';
import { create, startWorld, stopWorld, waitFor, type World } from '../helpers/data-plane-world.js';

const run = promisify(execFile);
const hasCurl = await run('curl', ['--version']).then(
  () => true,
  () => false,
);

/** A GET through a local address, with a fresh connection each time (no keep-alive pooling). */
async function get(address: string, path = '/'): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://${address}${path}`, { headers: { connection: 'close' } });
  return { status: res.status, body: await res.text() };
}

describe('agent tunnel', () => {
  let world: World;
  let web: Server;
  let webPort: number;
  let agent: Agent;
  let checkId: string;
  let serviceName: string;
  const events: TunnelEvent[] = [];
  const facts = machineFacts();
  const agentDir = tempDir('postern-agent-');

  beforeAll(async () => {
    world = await startWorld();
    web = createServer((req, res) => {
      if (req.url !== '/digest') return void res.end(`hello from the service; you asked for ${req.url}`);
      const hash = createHash('sha256');
      req.on('data', (c: Buffer) => hash.update(c));
      req.on('end', () => res.end(hash.digest('hex')));
    });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    webPort = (web.address() as { port: number }).port;
    serviceName = `web-${process.pid}`;
    const intercept = await create(world.admin, 'configs', {
      name: `${serviceName}-intercept`,
      configTypeId: 'intercept.v1',
      data: {
        protocols: ['tcp'],
        addresses: [`${serviceName}.internal`],
        portRanges: [{ low: 80, high: 80 }],
      },
    });
    const host = await create(world.admin, 'configs', {
      name: `${serviceName}-host`,
      configTypeId: 'host.v1',
      data: { protocol: 'tcp', address: '127.0.0.1', port: webPort },
    });
    const serviceId = await create(world.admin, 'services', {
      name: serviceName,
      configs: [intercept, host],
    });
    checkId = await create(world.admin, 'posture-checks', {
      name: `${serviceName}-mac`,
      typeId: 'MAC',
      macAddresses: [facts.mac],
    });
    await create(world.admin, 'service-policies', {
      name: `${serviceName}-dial`,
      type: 'Dial',
      semantic: 'AllOf',
      identityRoles: ['#tunnel-users'],
      serviceRoles: [`@${serviceId}`],
      postureCheckRoles: [`@${checkId}`],
    });
    await createUser(world.admin, 'tunnel-user', 'tunnel-password', { roleAttributes: ['tunnel-users'] });
    agent = new Agent({
      controllerUrl: world.url,
      credentials: new MemoryCredentialStore(),
      prompt: new ScriptedPromptPort(),
      reportIntervalMs: 60_000,
      tunnel: { portsFile: join(agentDir, 'tunnel-ports.json'), socksPort: 0 },
    });
    agent.tunnel!.events.on('event', (e) => events.push(e));
    await agent.login({ username: 'tunnel-user', password: 'tunnel-password' }, false);
    agent.start();
    await agent.reportNow();
    await waitFor(() => localAddress() !== undefined, 10_000, 'a local listener for the service');
  });

  afterAll(async () => {
    await agent?.stop();
    await new Promise<void>((resolve) => web.close(() => resolve()));
    await stopWorld(world);
  });

  const localAddress = () => agent.tunnel!.localAddresses().get(serviceName)?.[0];

  it('listens on loopback (a free port, since port 80 is privileged) and carries HTTP to the service', async () => {
    const address = localAddress()!;
    expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(Number(address.split(':')[1])).not.toBe(80);
    expect(events).toContainEqual({ type: 'listening', service: serviceName, address });
    const res = await get(address, '/through-the-tunnel');
    expect(res).toEqual({ status: 200, body: 'hello from the service; you asked for /through-the-tunnel' });
  });

  it.skipIf(!hasCurl)('reaches the service by its intercepted name through SOCKS5 (curl)', async () => {
    const socks = agent.tunnel!.socksListening!;
    const { stdout } = await run('curl', [
      '-s',
      '--max-time',
      '10',
      '--socks5-hostname',
      socks,
      `http://${serviceName}.internal/by-name`,
    ]);
    expect(stdout).toBe('hello from the service; you asked for /by-name');
    // A name no service intercepts is refused by the proxy, never dialed directly.
    const refused = await run('curl', [
      '-s',
      '--max-time',
      '5',
      '--socks5-hostname',
      socks,
      'http://example.invalid/',
    ]).then(
      () => 0,
      (err: { code?: number }) => err.code ?? -1,
    );
    expect(refused).not.toBe(0);
  });

  it('carries 100 MiB through one connection intact', async () => {
    // A raw TCP echo behind a second service would need its own policy; the HTTP service echoes nothing, so
    // send a large request body and compare the digest the service computes with ours.
    const body = randomBytes(100 * 1024 * 1024);
    const res = await fetch(`http://${localAddress()}/digest`, {
      method: 'POST',
      body,
      headers: { connection: 'close' },
    });
    expect(await res.text()).toBe(createHash('sha256').update(body).digest('hex'));
  }, 120_000);

  it('keeps the local port across a restart of the tunnel', async () => {
    const port = localAddress()!.split(':')[1];
    await agent.tunnel!.update([]);
    const again = new TunnelManager({
      portsFile: join(agentDir, 'tunnel-ports.json'),
      socksPort: null,
      createSession: () => Promise.reject(new Error('not used')),
      reasonsFor: async () => [],
    });
    await again.update(agent.directory.snapshot!.services);
    expect(again.localAddresses().get(serviceName)?.[0]).toBe(`127.0.0.1:${port}`);
    await again.stop();
    await agent.refreshServices();
    await waitFor(() => localAddress() === `127.0.0.1:${port}`, 5000, 'listener back on its port');
  });

  it('a posture change cuts the open connection, and the next is refused with the reason, as a 403 page to HTTP', async () => {
    const socket = connect(Number(localAddress()!.split(':')[1]), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write('GET /held HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => socket.once('data', resolve));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // The device is no longer on an approved network card: the check now asks for another MAC.
    const res = await world.admin.patch(`${MGMT}/posture-checks/${checkId}`, {
      macAddresses: ['02:00:00:00:00:01'],
    });
    expect(res.status).toBe(200);
    await closed;
    expect(events.some((e) => e.type === 'revoked' && e.service === serviceName)).toBe(true);

    const page = await get(localAddress()!);
    expect(page.status).toBe(403);
    expect(page.body).toContain(`Access to ${serviceName} was refused`);
    expect(page.body).toContain(
      '<strong>network adapter check</strong>: Connect from an allowed network adapter',
    );
    await waitFor(
      () => events.some((e) => e.type === 'refused' && e.service === serviceName),
      5000,
      'a refusal',
    );
    const refusal = events.find((e) => e.type === 'refused') as Extract<TunnelEvent, { type: 'refused' }>;
    expect(refusal.reasons.join(' ')).toMatch(/MAC|network/i);

    // Only an HTTP/1.x client gets words: other bytes, and a TLS ClientHello, get the connection closed unanswered.
    expect(await rawExchange(localAddress()!, Buffer.from('SSH-2.0-OpenSSH_9.6\r\n'))).toEqual(
      Buffer.alloc(0),
    );
    expect(
      await rawExchange(localAddress()!, Buffer.from([0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5])),
    ).toEqual(Buffer.alloc(0));
    // A client that waits for the server to speak first is closed after the short wait, not held.
    expect(await rawExchange(localAddress()!, Buffer.alloc(0))).toEqual(Buffer.alloc(0));

    // Approved again: the next connection goes through.
    await world.admin.patch(`${MGMT}/posture-checks/${checkId}`, { macAddresses: [facts.mac] });
    await agent.reportNow();
    expect((await get(localAddress()!)).status).toBe(200);
  });

  it('finds the router again by itself after the router restarts', async () => {
    const router = world.bundle.router!;
    const port = Number(new URL(router.url.replace('tls:', 'https:')).port);
    await router.close();
    const restarted = await startRouter({
      controllerUrl: world.url,
      dataDir: join(world.dataDir, 'router'),
      host: '127.0.0.1',
      port,
      graceMs: 30_000,
      log: pino({ level: 'silent' }),
    });
    world.bundle.router = restarted;
    await waitFor(() => restarted.link.isUp, 10_000, 'router relinked');
    expect((await get(localAddress()!, '/after-restart')).body).toContain('/after-restart');
  });

  it('refuses a router whose certificate does not match the pinned fingerprint, sending nothing', async () => {
    const connector = new RouterConnector();
    const router = world.bundle.router!;
    const result = await connector.dial(
      [{ ...routerWire(router.url), fingerprint: 'ab'.repeat(32) }],
      'any-token',
      'any-service',
    );
    connector.close();
    expect('stream' in result).toBe(false);
    expect((result as { error: string }).error).toMatch(/does not match its pinned fingerprint/);
  });
});

/** Connects, sends `bytes`, and returns all the agent sent back once it closed the connection. */
async function rawExchange(address: string, bytes: Buffer): Promise<Buffer> {
  const socket = connect(Number(address.split(':')[1]), '127.0.0.1');
  socket.on('error', () => undefined);
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  if (bytes.length) socket.write(bytes);
  await new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return Buffer.concat(received);
}

function routerWire(url: string) {
  return {
    name: 'r',
    hostname: '127.0.0.1',
    urls: { tls: url },
    supportedProtocols: { tls: url },
    isOnline: true,
    cost: 0,
    noTraversal: false,
    disabled: false,
    syncStatus: 'SYNC_DONE',
    fingerprint: '',
  };
}
