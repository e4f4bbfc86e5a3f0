/**
 * The registry stays complete: every system a posture type's descriptor says its fact is collected on has a
 * collector in the agent (the fact registry, or the per-OS PostureCollector for OpenZiti's own types), so a
 * descriptor claiming a system without one fails the build.
 */
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { createCollector } from '../../../../src/agent/collectors/create-collector.js';
import {
  FACT_COLLECTORS,
  POSTURE_COLLECTOR_TYPES,
  missingCollectors,
} from '../../../../src/agent/collectors/facts/fact-registry.js';
import {
  AGENT_PLATFORMS,
  POSTURE_TYPE_DESCRIPTORS,
  type PostureTypeDescriptor,
} from '../../../../src/api/posture-types/index.js';

const descriptor = (id: string, collectedOn: PostureTypeDescriptor['fact']): PostureTypeDescriptor => ({
  id,
  displayName: id,
  apiName: id,
  openZiti: false,
  operatingSystems: [],
  waitingFor: id,
  userNoun: id,
  description: id,
  optionFields: [],
  fact: collectedOn,
  reasons: {},
});

describe('the fact collector registry', () => {
  it('has a collector for every system every descriptor claims', () => {
    expect(POSTURE_TYPE_DESCRIPTORS.length).toBeGreaterThan(0);
    expect(missingCollectors(POSTURE_TYPE_DESCRIPTORS)).toEqual([]);
  });

  it('names a descriptor whose fact claims a system without a collector', () => {
    const fact = { schema: Type.Object({ on: Type.Boolean() }), collectedOn: ['linux', 'darwin'] as const };
    expect(missingCollectors([descriptor('USB_LOCKDOWN', fact)])).toEqual([
      'USB_LOCKDOWN on linux',
      'USB_LOCKDOWN on darwin',
    ]);
    // A type registered for Linux only, claiming Windows too.
    const linuxOnly = {
      ...FACT_COLLECTORS,
      FIREWALL: {
        ...FACT_COLLECTORS.FIREWALL,
        collectors: { linux: FACT_COLLECTORS.FIREWALL.collectors.linux },
      },
    };
    const firewall = POSTURE_TYPE_DESCRIPTORS.find((d) => d.id === 'FIREWALL')!;
    expect(missingCollectors([firewall], linuxOnly)).toEqual(['FIREWALL on win32', 'FIREWALL on darwin']);
  });

  it('needs nothing for a type without a fact (AGENT_VERSION is read from the API session)', () => {
    expect(missingCollectors([descriptor('AGENT_VERSION', null)])).toEqual([]);
  });

  it("counts OpenZiti's own types where the per-OS PostureCollector answers them", () => {
    const os = descriptor('OS', { schema: Type.Object({}), collectedOn: AGENT_PLATFORMS });
    expect(missingCollectors([os])).toEqual([]);
    // ... and that claim is true: create-collector builds a PostureCollector for each of those systems.
    const platforms = new Set(Object.values(POSTURE_COLLECTOR_TYPES).flat());
    for (const platform of platforms) expect(() => createCollector({ platform })).not.toThrow();
  });
});
