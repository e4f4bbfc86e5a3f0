import { describe, expect, it } from 'vitest';
import { describeResponse } from '../../../src/agent/cli/format.js';

describe('describeResponse for the device health facts', () => {
  it('prints the type and each field as it was sent, unknown values and their reason included', () => {
    expect(describeResponse({ id: 'c', typeId: 'FIREWALL', enabled: true })).toBe('FIREWALL enabled=true');
    expect(
      describeResponse({ id: 'c', typeId: 'DISK_ENCRYPTION', encrypted: null, unknownReason: 'not a disk' }),
    ).toBe('DISK_ENCRYPTION encrypted=null unknownReason="not a disk"');
    expect(describeResponse({ id: 'c', typeId: 'SCREEN_LOCK', lockEnabled: true, idleMinutes: 5 })).toBe(
      'SCREEN_LOCK lockEnabled=true idleMinutes=5',
    );
  });
});
