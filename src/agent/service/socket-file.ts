/**
 * The service socket's place on disk: its folder (made 0755 when the service creates it), a stale socket
 * from a crashed run replaced, a live one (another service answering) refused by name, and the socket's
 * owner and mode once it listens.
 */
import { chmodSync, chownSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { createConnection } from 'node:net';
import { dirname } from 'node:path';

/** Makes the socket's folder (0755: every allowed user must reach the socket inside it). */
export function prepareFolder(path: string): void {
  const folder = dirname(path);
  const made = mkdirSync(folder, { recursive: true, mode: 0o755 });
  // mkdir's mode is filtered by the umask; the folder this service made is set exactly.
  if (made !== undefined) chmodSync(folder, 0o755);
}

/** Removes a socket file nothing answers on; throws when a service answers there or it is not a socket. */
export async function clearStaleSocket(path: string): Promise<void> {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return;
  }
  if (!stat.isSocket())
    throw new Error(`${path} exists and is not a socket; remove it or choose another --socket`);
  if (await answers(path))
    throw new Error(`another Postern service is already running on ${path}; stop it first`);
  unlinkSync(path);
}

function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    const done = (live: boolean) => {
      socket.destroy();
      resolve(live);
    };
    socket.once('connect', () => done(true));
    // ECONNREFUSED: the file of a process that is gone.
    socket.once('error', () => done(false));
    socket.setTimeout(2000, () => done(true));
  });
}

/**
 * Owner and mode: root and the allowed group with 0660 when only that group (and root) may connect, so the
 * kernel turns everyone else away before the service sees them; 0666 when uids outside the group are
 * allowed too or the group does not exist, so the peer check is the gate and a refused user reads why.
 */
export function setSocketAccess(path: string, groupGid: number | undefined, otherUidsAllowed: boolean): void {
  const restricted = groupGid !== undefined && !otherUidsAllowed;
  if (restricted && process.getuid?.() === 0) chownSync(path, 0, groupGid);
  chmodSync(path, restricted ? 0o660 : 0o666);
}
