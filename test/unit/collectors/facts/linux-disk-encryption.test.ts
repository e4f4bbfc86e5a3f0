/**
 * The block device walker on a sysfs tree laid out as the kernel lays out a typical encrypted laptop: LVM on
 * LUKS on an NVMe partition for `/`, an unencrypted /boot and /boot/efi, a second disk, a USB stick, a snap-like
 * loop image and a dm-verity volume. The real-kernel test (linux-facts.real.test.ts) covers the same walker on
 * loop devices; this one covers layouts a test machine cannot build (LVM, partitions, dm-verity).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  collectLinuxDiskEncryption,
  mountHolding,
  parseMountinfo,
} from '../../../../src/agent/collectors/facts/disk-encryption/linux.js';
import { factEnvironment } from '../../../../src/agent/collectors/facts/fact-environment.js';

const root = mkdtempSync(join(tmpdir(), 'postern-sysfs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Device {
  /** path under /sys/devices */
  path: string;
  number: string;
  files?: Record<string, string>;
  slaves?: string[];
}

/** A sysfs tree (devices, /sys/dev/block and /sys/class/block links) and a /proc/self/mountinfo. */
function machine(name: string, devices: Device[], mountinfo: string[]) {
  const sys = join(root, name, 'sys');
  const proc = join(root, name, 'proc');
  mkdirSync(join(sys, 'dev', 'block'), { recursive: true });
  mkdirSync(join(sys, 'class', 'block'), { recursive: true });
  for (const device of devices) {
    const dir = join(sys, 'devices', device.path);
    mkdirSync(join(dir, 'slaves'), { recursive: true });
    for (const [file, text] of Object.entries(device.files ?? {})) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), `${text}\n`);
    }
    for (const slave of device.slaves ?? []) mkdirSync(join(dir, 'slaves', slave));
    const base = device.path.split('/').at(-1)!;
    symlinkSync(relative(join(sys, 'dev', 'block'), dir), join(sys, 'dev', 'block', device.number));
    symlinkSync(relative(join(sys, 'class', 'block'), dir), join(sys, 'class', 'block', base));
  }
  mkdirSync(join(proc, 'self'), { recursive: true });
  writeFileSync(join(proc, 'self', 'mountinfo'), mountinfo.join('\n'));
  return (rootMount = '/') =>
    collectLinuxDiskEncryption(factEnvironment({ sysRoot: sys, procRoot: proc, rootMount }));
}

const line = (id: number, device: string, mountPoint: string, fsType: string, source: string) =>
  `${id} 1 ${device} / ${mountPoint} rw,relatime shared:1 - ${fsType} ${source} rw`;

const NVME = 'pci0000:00/0000:00:1d.0/nvme/nvme0/nvme0n1';
const laptopDevices: Device[] = [
  { path: NVME, number: '259:0', files: { removable: '0' } },
  { path: `${NVME}/nvme0n1p1`, number: '259:1', files: { partition: '1' } },
  { path: `${NVME}/nvme0n1p2`, number: '259:2', files: { partition: '2' } },
  { path: `${NVME}/nvme0n1p3`, number: '259:3', files: { partition: '3' } },
  {
    path: 'virtual/block/dm-0',
    number: '254:0',
    files: { 'dm/uuid': 'CRYPT-LUKS2-0a1b2c3d-luks-root' },
    slaves: ['nvme0n1p3'],
  },
  { path: 'virtual/block/dm-1', number: '254:1', files: { 'dm/uuid': 'LVM-abcdef-root' }, slaves: ['dm-0'] },
  { path: 'virtual/block/dm-2', number: '254:2', files: { 'dm/uuid': 'LVM-abcdef-home' }, slaves: ['dm-0'] },
  {
    path: 'virtual/block/loop3',
    number: '7:3',
    files: { removable: '0', 'loop/backing_file': '/var/lib/snapd/snaps/core_1.snap' },
  },
  { path: 'pci0000:00/usb1/1-1/sdb', number: '8:16', files: { removable: '1' } },
  { path: 'pci0000:00/usb1/1-1/sdb/sdb1', number: '8:17', files: { partition: '1' } },
];
const laptopMounts = [
  line(20, '0:22', '/proc', 'proc', 'proc'),
  line(21, '254:1', '/', 'ext4', '/dev/mapper/vg-root'),
  line(22, '259:2', '/boot', 'ext4', '/dev/nvme0n1p2'),
  line(23, '259:1', '/boot/efi', 'vfat', '/dev/nvme0n1p1'),
  line(24, '254:2', '/home', 'ext4', '/dev/mapper/vg-home'),
  line(25, '7:3', '/snap/core/1', 'squashfs', '/dev/loop3'),
  line(26, '8:17', '/media/user/USB\\040STICK', 'vfat', '/dev/sdb1'),
  line(27, '0:30', '/run', 'tmpfs', 'tmpfs'),
];

describe('DISK_ENCRYPTION on Linux: the block device tree', () => {
  it('finds LUKS under LVM, ignores /boot, removable media and pseudo file systems, follows a loop image to its file', async () => {
    const collect = machine('laptop', laptopDevices, laptopMounts);
    expect(await collect()).toEqual({ encrypted: true, allVolumesEncrypted: true });
  });

  it('a second fixed disk left unencrypted makes allVolumes false, not the system volume', async () => {
    const collect = machine(
      'two-disks',
      [
        ...laptopDevices,
        { path: 'pci0000:00/ata1/sda', number: '8:0', files: { removable: '0' } },
        { path: 'pci0000:00/ata1/sda/sda1', number: '8:1', files: { partition: '1' } },
      ],
      [...laptopMounts, line(28, '8:1', '/data', 'ext4', '/dev/sda1')],
    );
    expect(await collect()).toEqual({ encrypted: true, allVolumesEncrypted: false });
    expect(await collect('/data')).toEqual({ encrypted: false, allVolumesEncrypted: false });
  });

  it('an unencrypted partition, a dm-verity volume and RAID with one plain member are not encrypted', async () => {
    const collect = machine(
      'plain',
      [
        { path: NVME, number: '259:0', files: { removable: '0' } },
        { path: `${NVME}/nvme0n1p2`, number: '259:2', files: { partition: '2' } },
        { path: `${NVME}/nvme0n1p3`, number: '259:3', files: { partition: '3' } },
        {
          path: 'virtual/block/dm-0',
          number: '254:0',
          files: { 'dm/uuid': 'CRYPT-VERITY-0a1b-usr' },
          slaves: ['nvme0n1p2'],
        },
        {
          path: 'virtual/block/dm-1',
          number: '254:1',
          files: { 'dm/uuid': 'CRYPT-LUKS2-77-a' },
          slaves: ['nvme0n1p3'],
        },
        {
          path: 'virtual/block/md0',
          number: '9:0',
          files: { removable: '0' },
          slaves: ['dm-1', 'nvme0n1p2'],
        },
      ],
      [
        line(21, '259:3', '/', 'ext4', '/dev/nvme0n1p3'),
        line(22, '254:0', '/usr', 'ext4', '/dev/mapper/usr'),
        line(23, '9:0', '/srv', 'ext4', '/dev/md0'),
      ],
    );
    expect(await collect('/')).toEqual({ encrypted: false, allVolumesEncrypted: false });
    expect((await collect('/usr')).encrypted).toBe(false);
    expect((await collect('/srv')).encrypted).toBe(false);
  });

  it.skipIf(!existsSync('/dev/loop0'))(
    'btrfs: an anonymous device number is resolved through the mount source',
    async () => {
      // The source must be a real block device file for stat(): /dev/loop0 (7:0) is one wherever loops exist.
      const collect = machine(
        'btrfs',
        [{ path: 'virtual/block/loop0', number: '7:0', files: { removable: '0' } }],
        [line(21, '0:31', '/', 'btrfs', '/dev/loop0')],
      );
      expect(await collect()).toEqual({ encrypted: false, allVolumesEncrypted: false });
    },
  );

  it('a root that is no disk (a container overlay) is unknown with the reason', async () => {
    const collect = machine('container', [], [line(21, '0:50', '/', 'overlay', 'overlay')]);
    expect(await collect()).toEqual({
      encrypted: null,
      unknownReason: expect.stringMatching(/not a disk \(overlay from overlay\)/),
    });
  });

  it('reads mountinfo escapes and finds the deepest mount holding a path', () => {
    const mounts = parseMountinfo(laptopMounts.join('\n'));
    expect(mounts.find((m) => m.device === '8:17')?.mountPoint).toBe('/media/user/USB STICK');
    expect(mountHolding(mounts, '/home/user/file')?.mountPoint).toBe('/home');
    expect(mountHolding(mounts, '/homework')?.mountPoint).toBe('/');
    expect(mountHolding(mounts, '/boot/efi/EFI')?.mountPoint).toBe('/boot/efi');
  });
});
