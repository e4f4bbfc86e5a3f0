/**
 * A fault while serving one connection on a service's local listener costs that connection only. The fault
 * here comes from data: a session whose list of edge routers holds a null (a broken or foreign controller),
 * on which choosing a router throws. The connection is closed, the fault reported, and the listener takes
 * the next connection; before, the rejection went unhandled and ended the agent.
 */
import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionDetail } from '../../../src/api/services.js';
import type { TunnelEvent } from '../../../src/agent/tunnel/tunnel-events.js';
import { TunnelManager } from '../../../src/agent/tunnel/tunnel-manager.js';
import { waitFor } from '../../helpers/data-plane-world.js';
import { interceptedService } from '../../helpers/tunnel-fixtures.js';

const brokenSession = {
  id: 'session-1',
  type: 'Dial',
  serviceId: 'svc-crm-0',
  token: 'a-token',
  edgeRouters: [null],
} as unknown as SessionDetail;

describe('a fault on one local connection', () => {
  const events: TunnelEvent[] = [];
  const tunnel = new TunnelManager({
    socksPort: null,
    createSession: async () => brokenSession,
    reasonsFor: async () => [],
  });
  tunnel.events.on('event', (e) => events.push(e));
  afterAll(() => tunnel.stop());

  it('closes that connection, says so, and the listener takes the next one', async () => {
    await tunnel.update([interceptedService(0)]);
    const port = Number(tunnel.localAddresses().get('crm')![0]!.split(':').pop());
    for (const attempt of [1, 2]) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.resume();
      await new Promise<void>((resolve) => socket.once('close', () => resolve()));
      await waitFor(
        () => events.filter((e) => e.type === 'error').length === attempt,
        15_000,
        `fault ${attempt} reported`,
      );
    }
    const faults = events.filter((e) => e.type === 'error') as Extract<TunnelEvent, { type: 'error' }>[];
    expect(faults.map((e) => e.service)).toEqual(['crm', 'crm']);
    expect(faults[0]!.message).toMatch(/^a local connection failed and was closed: /);
  });
});
