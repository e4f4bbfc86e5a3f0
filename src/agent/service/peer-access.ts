/**
 * Who may use the agent service: root, the uids the administrator listed, and members of the service's
 * group (`postern` by default). A peer's uid, gid and pid come from the kernel (SO_PEERCRED); its
 * supplementary groups from /proc/<pid>/status, checked against the same uid so a peer that exited and
 * whose pid was reused is refused rather than judged by another process's groups.
 */
import { readFileSync } from 'node:fs';
import type { PeerCredentials } from '../../common/native-net.js';

export interface AccessPolicy {
  /** the group whose members may connect; its gid is looked up in /etc/group at each connection */
  allowGroup: string | undefined;
  allowUids: readonly number[];
}

export type AccessDecision = { allowed: true } | { allowed: false; reason: string };

export interface SystemFiles {
  /** /etc/group */
  groupFile: string;
  /** /proc */
  procDir: string;
}

const SYSTEM: SystemFiles = { groupFile: '/etc/group', procDir: '/proc' };

/** A group's gid from the group file, or undefined when there is no such group. */
export function groupId(name: string, groupFile = SYSTEM.groupFile): number | undefined {
  let text: string;
  try {
    text = readFileSync(groupFile, 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const [group, , gid] = line.split(':');
    if (group === name && gid !== undefined && /^\d+$/.test(gid)) return Number(gid);
  }
  return undefined;
}

/** The process's real uid and supplementary groups, from its status file; undefined when it is gone. */
export function processIds(
  pid: number,
  procDir = SYSTEM.procDir,
): { uid: number; groups: number[] } | undefined {
  let text: string;
  try {
    text = readFileSync(`${procDir}/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const field = (name: string) =>
    text
      .split('\n')
      .find((line) => line.startsWith(`${name}:`))
      ?.slice(name.length + 1)
      .trim()
      .split(/\s+/)
      .filter((word) => /^\d+$/.test(word))
      .map(Number);
  const uid = field('Uid')?.[0];
  if (uid === undefined) return undefined;
  return { uid, groups: field('Groups') ?? [] };
}

export function decideAccess(
  peer: PeerCredentials,
  policy: AccessPolicy,
  files: SystemFiles = SYSTEM,
): AccessDecision {
  if (peer.uid === 0 || policy.allowUids.includes(peer.uid)) return { allowed: true };
  const group = policy.allowGroup;
  const gid = group === undefined ? undefined : groupId(group, files.groupFile);
  if (group !== undefined && gid !== undefined) {
    const process = processIds(peer.pid, files.procDir);
    // The pid is the one the peer had when it connected; its status must still be that user's.
    const groups = process && process.uid === peer.uid ? [peer.gid, ...process.groups] : [peer.gid];
    if (groups.includes(gid)) return { allowed: true };
  }
  return { allowed: false, reason: refusalReason(peer.uid, group, gid !== undefined) };
}

function refusalReason(uid: number, group: string | undefined, groupExists: boolean): string {
  const base = `user ${uid} is not allowed to use the Postern service`;
  if (group === undefined) return `${base}: ask an administrator to allow this user (--allow-uid ${uid})`;
  if (!groupExists)
    return `${base}: the group ${group} does not exist on this machine; create it and add them (groupadd ${group}; usermod -aG ${group} <user>)`;
  return `${base}: add them to the group ${group}`;
}

/** Logs each refused uid at most once per `windowMs`: a client retrying in a loop cannot flood the log. */
export class RefusalLog {
  private readonly last = new Map<number, number>();

  constructor(
    private readonly log: (line: string) => void,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  refused(uid: number, reason: string): void {
    const at = this.now();
    const previous = this.last.get(uid);
    if (previous !== undefined && at - previous < this.windowMs) return;
    // Forget old entries so a scan of many uids cannot grow the map without bound.
    for (const [key, time] of this.last) if (at - time >= this.windowMs) this.last.delete(key);
    this.last.set(uid, at);
    this.log(`refused a connection: ${reason}`);
  }
}
