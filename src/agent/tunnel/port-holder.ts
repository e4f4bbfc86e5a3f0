/**
 * Who holds a listening TCP port on this machine, so a refusal to listen names someone a person can act on:
 * `pid 4242 (nc), user mallory (uid 1001)`. Linux only, from /proc: the listening socket's owner uid is always
 * readable there; its process only when it runs as the same user (or the agent runs as root). Elsewhere, or
 * when nothing can be found, undefined: the caller says the port is taken without naming anyone.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';
import { isIPv6 } from 'node:net';

/** TCP state 0A in /proc/net/tcp*: LISTEN. */
const LISTEN = '0A';

/** /proc/net/tcp* spell an address as the kernel stores it: 32-bit words in host (little-endian) order. */
const PROC_ADDRESSES: Record<string, string[]> = {
  '127.0.0.1': ['0100007F'],
  '::1': ['00000000000000000000000001000000'],
};
const ANY_V4 = '00000000';
const ANY_V6 = '0'.repeat(32);

export async function describePortHolder(host: string, port: number): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  try {
    const listener = await findListener(host, port);
    if (!listener) return undefined;
    const user = await userName(listener.uid);
    const owner = user ? `user ${user} (uid ${listener.uid})` : `uid ${listener.uid}`;
    const pid = await findPid(listener.inode);
    if (!pid) return owner;
    const command = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '?')).trim();
    return `pid ${pid} (${command}), ${owner}`;
  } catch {
    return undefined;
  }
}

/** The listening socket that blocks `host:port`: one on that address, or on the wildcard of its family. */
async function findListener(host: string, port: number): Promise<{ uid: string; inode: string } | undefined> {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const v6 = isIPv6(host);
  // A dual-stack wildcard listener ([::]) blocks 127.0.0.1 as well.
  const tables = v6
    ? [{ file: '/proc/net/tcp6', addresses: [...(PROC_ADDRESSES[host] ?? []), ANY_V6] }]
    : [
        { file: '/proc/net/tcp', addresses: [...(PROC_ADDRESSES[host] ?? []), ANY_V4] },
        { file: '/proc/net/tcp6', addresses: [ANY_V6] },
      ];
  for (const { file, addresses } of tables) {
    const lines = (await readFile(file, 'utf8').catch(() => '')).split('\n').slice(1);
    for (const line of lines) {
      const [, local, , state, , , , uid, , inode] = line.trim().split(/\s+/);
      if (state !== LISTEN || !local || !uid || !inode) continue;
      const [address, localPort] = local.split(':');
      if (localPort === hexPort && addresses.includes(address!)) return { uid, inode };
    }
  }
  return undefined;
}

/** The process with the socket open, among those this process may look into. */
async function findPid(inode: string): Promise<string | undefined> {
  const target = `socket:[${inode}]`;
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
    for (const fd of fds)
      if ((await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')) === target) return pid;
  }
  return undefined;
}

async function userName(uid: string): Promise<string | undefined> {
  const passwd = await readFile('/etc/passwd', 'utf8').catch(() => '');
  return passwd
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[2] === uid)?.[0];
}
