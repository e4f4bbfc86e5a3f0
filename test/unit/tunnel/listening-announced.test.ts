/**
 * A 'listening' event is heard after the listener is published: whoever redraws on it (the desktop's service
 * list) reads the new address from localAddresses() at once, not on some later change.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { TunnelManager } from '../../../src/agent/tunnel/tunnel-manager.js';
import { interceptedService } from '../../helpers/tunnel-fixtures.js';

describe('a tunnel listener announced', () => {
  const tunnel = new TunnelManager({
    socksPort: null,
    createSession: () => Promise.reject(new Error('unused')),
    reasonsFor: async () => [],
  });
  afterAll(() => tunnel.stop());

  it('is already among the local addresses when its listening event is heard', async () => {
    const seenAtEvent: (string[] | undefined)[] = [];
    const announced: string[] = [];
    tunnel.events.on('event', (event) => {
      if (event.type !== 'listening') return;
      announced.push(event.address);
      seenAtEvent.push(tunnel.localAddresses().get('crm'));
    });
    await tunnel.update([interceptedService(0)]);
    expect(announced.length).toBeGreaterThan(0);
    for (const [i, address] of announced.entries()) expect(seenAtEvent[i]).toContain(address);
  });
});
