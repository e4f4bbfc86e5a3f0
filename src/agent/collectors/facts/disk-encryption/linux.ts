/**
 * Linux disk encryption from the kernel's own records, without privileges: the device under a mount point
 * comes from /proc/self/mountinfo, and sysfs's block device tree says what it sits on. A device is
 * encrypted when it is a dm-crypt mapping (its dm uuid starts `CRYPT-`, as cryptsetup names LUKS, plain,
 * BitLocker and TrueCrypt mappings alike), or when everything it is built on is (LVM or RAID over LUKS), or
 * when it is a partition of such a device or a loop device over a file on such a volume.
 */
import { readFile, readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { DiskEncryptionFact } from '../../../../api/posture-types/index.js';
import type { FactEnvironment } from '../fact-environment.js';

export interface Mount {
  /** `major:minor` as mountinfo gives it (btrfs gives an anonymous 0:N here) */
  device: string;
  mountPoint: string;
  fsType: string;
  /** the mount source: `/dev/mapper/root`, `tmpfs`, ... */
  source: string;
}

/** dm-crypt targets that do not encrypt: dm-verity and dm-integrity are set up by cryptsetup too. */
const NOT_ENCRYPTING = /^CRYPT-(VERITY|INTEGRITY|SUBDEV)-/;
/** Mounts the firmware or boot loader must read, unencrypted by design on an encrypted install. */
const BOOT_MOUNT = /^\/(boot|efi)(\/|$)/;
/** Loop devices over files on loop devices over files...: a bound, not a real layout. */
const MAX_DEPTH = 8;

/** `\040` in mountinfo is a space, and so on: mount points are octal-escaped. */
function unescapeMountField(value: string): string {
  return value.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

export function parseMountinfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const separator = fields.indexOf('-', 6);
    if (fields.length < 10 || separator < 0) continue;
    mounts.push({
      device: fields[2]!,
      mountPoint: unescapeMountField(fields[4]!),
      fsType: fields[separator + 1] ?? '',
      source: unescapeMountField(fields[separator + 2] ?? ''),
    });
  }
  return mounts;
}

/** `major:minor` of a device file, from its rdev (glibc's encoding of dev_t). */
function deviceNumberOf(rdev: number): string {
  const dev = BigInt(rdev);
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  return `${major}:${minor}`;
}

async function readTrimmed(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    return undefined;
  }
}

async function entries(path: string): Promise<string[]> {
  try {
    return await readdir(path);
  } catch {
    return [];
  }
}

export class BlockDeviceTree {
  private readonly memo = new Map<string, Promise<boolean>>();

  constructor(
    private readonly sysRoot: string,
    private readonly mounts: readonly Mount[],
  ) {}

  /**
   * The block device name (`dm-0`, `sda2`) holding a mount, or undefined when it is not on a block device
   * (tmpfs, overlay, NFS). btrfs reports an anonymous device number; its source device file is used then.
   */
  async deviceOf(mount: Mount): Promise<string | undefined> {
    const byNumber = await this.nameOf(mount.device);
    if (byNumber) return byNumber;
    if (!mount.source.startsWith('/dev/')) return undefined;
    try {
      const info = await stat(mount.source);
      return info.isBlockDevice() ? await this.nameOf(deviceNumberOf(info.rdev)) : undefined;
    } catch {
      return undefined;
    }
  }

  private async nameOf(device: string): Promise<string | undefined> {
    try {
      return basename(await realpath(join(this.sysRoot, 'dev', 'block', device)));
    } catch {
      return undefined;
    }
  }

  /** Whether the data on this block device is encrypted at rest. */
  isEncrypted(name: string, depth = 0): Promise<boolean> {
    let known = this.memo.get(name);
    if (!known) {
      known = this.judge(name, depth);
      this.memo.set(name, known);
    }
    return known;
  }

  /** Whether the device is removable media (a partition answers for its disk). */
  async isRemovable(name: string): Promise<boolean> {
    const dir = join(this.sysRoot, 'class', 'block', name);
    const own = await readTrimmed(join(dir, 'removable'));
    if (own !== undefined) return own === '1';
    const disk = await this.parentDisk(name);
    return (
      disk !== undefined &&
      (await readTrimmed(join(this.sysRoot, 'class', 'block', disk, 'removable'))) === '1'
    );
  }

  private async judge(name: string, depth: number): Promise<boolean> {
    if (depth > MAX_DEPTH) return false;
    const dir = join(this.sysRoot, 'class', 'block', name);
    const uuid = await readTrimmed(join(dir, 'dm', 'uuid'));
    if (uuid?.startsWith('CRYPT-') && !NOT_ENCRYPTING.test(uuid)) return true;
    const slaves = await entries(join(dir, 'slaves'));
    if (slaves.length > 0) {
      const judged = await Promise.all(slaves.map((slave) => this.isEncrypted(slave, depth + 1)));
      return judged.every(Boolean);
    }
    const disk = await this.parentDisk(name);
    if (disk) return this.isEncrypted(disk, depth + 1);
    const backingFile = await readTrimmed(join(dir, 'loop', 'backing_file'));
    if (backingFile) return this.isFileEncrypted(backingFile.replace(/ \(deleted\)$/, ''), depth + 1);
    return false;
  }

  /** The whole disk of a partition (sysfs nests partitions in their disk's directory). */
  private async parentDisk(name: string): Promise<string | undefined> {
    const dir = join(this.sysRoot, 'class', 'block', name);
    if ((await readTrimmed(join(dir, 'partition'))) === undefined) return undefined;
    try {
      return basename(dirname(await realpath(dir)));
    } catch {
      return undefined;
    }
  }

  /** A file is encrypted when the volume of the deepest mount holding it is. */
  private async isFileEncrypted(path: string, depth: number): Promise<boolean> {
    const holder = mountHolding(this.mounts, path);
    if (!holder) return false;
    const device = await this.deviceOf(holder);
    return device !== undefined && this.isEncrypted(device, depth);
  }
}

/** The mount a path is under: the last mounted of the longest matching mount points. */
export function mountHolding(mounts: readonly Mount[], path: string): Mount | undefined {
  let best: Mount | undefined;
  for (const mount of mounts) {
    const prefix = mount.mountPoint.endsWith('/') ? mount.mountPoint : `${mount.mountPoint}/`;
    const under = path === mount.mountPoint || path.startsWith(prefix);
    if (under && (!best || mount.mountPoint.length >= best.mountPoint.length)) best = mount;
  }
  return best;
}

/** The system volume (the mount at `rootMount`) and every mounted fixed volume, judged from sysfs. */
export async function collectLinuxDiskEncryption(env: FactEnvironment): Promise<DiskEncryptionFact> {
  const mounts = parseMountinfo(await readFile(join(env.procRoot, 'self', 'mountinfo'), 'utf8'));
  const tree = new BlockDeviceTree(env.sysRoot, mounts);
  const root = mounts.filter((m) => m.mountPoint === env.rootMount).at(-1);
  if (!root) return { encrypted: null, unknownReason: `nothing is mounted at ${env.rootMount}` };
  const rootDevice = await tree.deviceOf(root);
  if (!rootDevice)
    return {
      encrypted: null,
      unknownReason: `the system volume is not a disk (${root.fsType} from ${root.source}): a container or a network root`,
    };
  const encrypted = await tree.isEncrypted(rootDevice);
  return { encrypted, allVolumesEncrypted: encrypted && (await everyFixedVolumeEncrypted(tree, mounts)) };
}

async function everyFixedVolumeEncrypted(tree: BlockDeviceTree, mounts: readonly Mount[]): Promise<boolean> {
  const judged = new Map<string, Promise<boolean>>();
  for (const mount of mounts) {
    if (BOOT_MOUNT.test(mount.mountPoint)) continue;
    judged.set(
      mount.mountPoint,
      tree.deviceOf(mount).then(async (device) => {
        if (!device || (await tree.isRemovable(device))) return true;
        return tree.isEncrypted(device);
      }),
    );
  }
  return (await Promise.all(judged.values())).every(Boolean);
}
