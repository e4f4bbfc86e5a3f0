import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { NetworkInterfaceInfo } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  collectMacAddresses,
  normalizeMac,
  sysfsOperstateProbe,
} from '../../../src/agent/collectors/mac-addresses.js';

function info(mac: string, internal = false, address = '192.0.2.1'): NetworkInterfaceInfo {
  return { address, netmask: '255.255.255.0', family: 'IPv4', mac, internal, cidr: null };
}

const sysRoot = mkdtempSync(join(tmpdir(), 'postern-sys-'));
afterAll(() => rmSync(sysRoot, { recursive: true, force: true }));
function operstate(name: string, state: string): void {
  mkdirSync(join(sysRoot, 'class', 'net', name), { recursive: true });
  writeFileSync(join(sysRoot, 'class', 'net', name, 'operstate'), `${state}\n`);
}

describe('MAC address collection', () => {
  it('normalises any separator and case, and rejects zero or short addresses', () => {
    expect(normalizeMac('AA-BB-CC-DD-EE-0F')).toBe('aa:bb:cc:dd:ee:0f');
    expect(normalizeMac('aabb.ccdd.ee0f')).toBe('aa:bb:cc:dd:ee:0f');
    expect(normalizeMac('00:00:00:00:00:00')).toBeUndefined();
    expect(normalizeMac('aa:bb:cc:dd:ee')).toBeUndefined();
  });

  it('drops loopback and down interfaces, deduplicates and sorts', async () => {
    operstate('eth0', 'up');
    operstate('wlan0', 'down');
    operstate('wg0', 'unknown');
    operstate('br0', 'up');
    const list = () => ({
      lo: [info('00:00:00:00:00:00', true, '127.0.0.1')],
      eth0: [
        info('F0:DE:F1:00:00:02'),
        { ...info('f0:de:f1:00:00:02'), family: 'IPv6' as const, scopeid: 0 },
      ],
      'eth0:1': [info('f0:de:f1:00:00:02', false, '192.0.2.9')],
      wlan0: [info('10:00:00:00:00:01')],
      wg0: [info('00:00:00:00:00:00')],
      br0: [info('02:42:ac:11:00:01')],
      vnet9: [info('52:54:00:12:34:56')],
    });
    // vnet9 has no sysfs entry: no opinion, so libuv's "up" stands.
    expect(await collectMacAddresses(list, sysfsOperstateProbe(sysRoot))).toEqual([
      '02:42:ac:11:00:01',
      '52:54:00:12:34:56',
      'f0:de:f1:00:00:02',
    ]);
  });

  it('ignores interface names that would escape the sysfs directory', async () => {
    expect(await sysfsOperstateProbe(sysRoot)('../../etc')).toBeUndefined();
    expect(await sysfsOperstateProbe(sysRoot)('wlan0')).toBe(false);
  });
});
