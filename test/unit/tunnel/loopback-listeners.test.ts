/**
 * Both loopback listeners on one port, or neither, against a real squatter: another socket holding
 * [::1]:<port> (any local user can bind one) must never receive what a client sent to `localhost:<port>`.
 * A service's listener moves both addresses to another port and says why; a SOCKS5 port the user asked for
 * is refused, naming the port and who holds it; a machine without IPv6 loopback listens on IPv4 alone.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopbackBinder, closeServer } from '../../../src/agent/tunnel/loopback-listeners.js';
import type { TunnelEvent } from '../../../src/agent/tunnel/tunnel-events.js';
import { TunnelManager } from '../../../src/agent/tunnel/tunnel-manager.js';
import { interceptedService } from '../../helpers/tunnel-fixtures.js';
import os from 'node:os';

const hasIpv6Loopback = await listen(createServer(), '::1', 0).then(
  async (s) => (await closeServer(s), true),
  () => false,
);

function listen(server: Server, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => resolve(server));
  });
}

const portOf = (server: Server) => (server.address() as { port: number }).port;

/** A local user's socket on [::1] at a port 127.0.0.1 still has free; counts what reaches it. */
async function squatter(): Promise<{ server: Server; port: number; connections: () => number }> {
  for (;;) {
    let count = 0;
    const server = await listen(
      createServer((socket) => {
        count++;
        socket.destroy();
      }),
      '::1',
      0,
    );
    const port = portOf(server);
    const free = await listen(createServer(), '127.0.0.1', port).then(
      async (probe) => (await closeServer(probe), true),
      () => false,
    );
    if (free) return { server, port, connections: () => count };
    await closeServer(server);
  }
}

describe.runIf(hasIpv6Loopback)('loopback listeners: both addresses on one port, or neither', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  function manager(options: { socksPort?: number | null; portsFile?: string } = {}) {
    const events: TunnelEvent[] = [];
    const tunnel = new TunnelManager({
      socksPort: null,
      ...options,
      createSession: () => Promise.reject(new Error('no controller in this test')),
      reasonsFor: async () => [],
    });
    tunnel.events.on('event', (e) => events.push(e));
    cleanup.push(() => tunnel.stop());
    return { tunnel, events };
  }

  it('moves a service off a port squatted on [::1], both addresses together, and says who holds it', async () => {
    const squat = await squatter();
    cleanup.push(() => closeServer(squat.server));
    const { tunnel, events } = manager();
    await tunnel.update([interceptedService(squat.port)]);

    const addresses = tunnel.localAddresses().get('crm')!;
    const port = Number(addresses[0]!.split(':').pop());
    expect(port).not.toBe(squat.port);
    expect(addresses).toEqual([`127.0.0.1:${port}`, `[::1]:${port}`]);
    const warning = events.find((e) => e.type === 'warning');
    expect(warning).toMatchObject({ service: 'crm' });
    expect((warning as { message: string }).message).toContain(
      `[::1]:${squat.port} is taken by pid ${process.pid}`,
    );
    expect((warning as { message: string }).message).toContain(`127.0.0.1:${squat.port} was let go as well`);

    // A client of either address reaches the agent, never the squatter.
    for (const host of ['127.0.0.1', '::1']) {
      const socket = connect(port, host);
      socket.on('error', () => undefined);
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.destroy();
    }
    expect(squat.connections()).toBe(0);
  });

  it('refuses the SOCKS5 port the user asked for when [::1] is squatted, naming it and its holder, holding nothing', async () => {
    const squat = await squatter();
    cleanup.push(() => closeServer(squat.server));
    const { tunnel } = manager({ socksPort: squat.port });
    await expect(tunnel.start()).rejects.toThrow(
      new RegExp(`\\[::1\\]:${squat.port} is taken by pid ${process.pid} .*choose another port`),
    );
    expect(tunnel.socksListening).toBeUndefined();
    // 127.0.0.1 at that port was let go: anyone (the user, retrying) can take it.
    const probe = await listen(createServer(), '127.0.0.1', squat.port);
    await closeServer(probe);
  });

  it('moves the SOCKS5 listener chosen automatically (the port remembered) off a squatted port', async () => {
    const squat = await squatter();
    cleanup.push(() => closeServer(squat.server));
    const dir = mkdtempSync(join(tmpdir(), 'postern-ports-'));
    cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
    const portsFile = join(dir, 'tunnel-ports.json');
    writeFileSync(portsFile, JSON.stringify({ socks5: squat.port }));
    const { tunnel, events } = manager({ socksPort: undefined, portsFile });
    await tunnel.start();
    const port = Number(tunnel.socksListening!.split(':').pop());
    expect(port).not.toBe(squat.port);
    expect(
      events.filter((e) => e.type === 'listening').map((e) => (e as { address: string }).address),
    ).toEqual([`127.0.0.1:${port}`, `[::1]:${port}`]);
    expect(events.some((e) => e.type === 'warning' && e.service === 'socks5')).toBe(true);
  });
});

describe('loopback listeners without an IPv6 loopback', () => {
  // ::2 stands for the ::1 of a machine without IPv6: the kernel answers EADDRNOTAVAIL for real.
  const missing = '::2';
  const present = Object.values(os.networkInterfaces())
    .flat()
    .some((i) => i?.address === missing);

  it.skipIf(present)('listens on 127.0.0.1 alone and says so once', async () => {
    const binder = new LoopbackBinder(missing);
    const warnings: string[] = [];
    const warn = (m: string) => warnings.push(m);
    const first = await binder.listen({ make: () => createServer(), port: 0, fixed: false, warn });
    const second = await binder.listen({ make: () => createServer(), port: 0, fixed: false, warn });
    expect(first.addresses).toEqual([`127.0.0.1:${first.port}`]);
    expect(second.addresses).toEqual([`127.0.0.1:${second.port}`]);
    expect(warnings).toEqual([`this machine has no IPv6 loopback (::2): listening on 127.0.0.1 only`]);
    for (const server of [...first.servers, ...second.servers]) await closeServer(server);
  });
});
