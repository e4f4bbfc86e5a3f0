/**
 * The Node-API addon (native/postern_net.c): socket facts Node has no API for. Loaded on first use; where it
 * is not built (no compiler at install, another OS) callers get the reason in words instead of a crash.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Socket } from 'node:net';

export interface OriginalDestination {
  address: string;
  port: number;
  family: 4 | 6;
}

export interface PeerCredentials {
  pid: number;
  uid: number;
  gid: number;
}

interface Addon {
  originalDestination(fd: number): OriginalDestination | null;
  peerCredentials(fd: number): PeerCredentials;
}

const ADDON = join('native', 'build', 'Release', 'postern_net.node');

let loaded: { addon: Addon } | { unavailable: string } | undefined;

/** The addon, or why it cannot be used here. */
export function nativeNet(): { addon: Addon } | { unavailable: string } {
  loaded ??= load();
  return loaded;
}

function load(): { addon: Addon } | { unavailable: string } {
  if (process.platform !== 'linux') return { unavailable: `not available on ${process.platform}` };
  const file = findUpwards(dirname(fileURLToPath(import.meta.url)));
  if (!file) return { unavailable: 'the native addon is not built (run: npm run build:native)' };
  try {
    return { addon: createRequire(import.meta.url)(file) as Addon };
  } catch (err) {
    return { unavailable: `the native addon did not load: ${(err as Error).message}` };
  }
}

/** The addon sits at the package root; this module at a different depth in the source tree and in dist/. */
function findUpwards(from: string): string | undefined {
  let dir = from;
  for (let depth = 0; depth < 8; depth++) {
    if (existsSync(join(dir, ADDON))) return join(dir, ADDON);
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}

/** A connected socket's descriptor (Node keeps it on the handle, undocumented but stable on Unix). */
export function socketDescriptor(socket: Socket): number | undefined {
  const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/** Where a redirected connection was headed, or null when it was not redirected. Throws when unavailable. */
export function originalDestination(socket: Socket): OriginalDestination | null {
  const fd = socketDescriptor(socket);
  if (fd === undefined) return null;
  return requireAddon().originalDestination(fd);
}

/** The process at the other end of a Unix socket. Throws when unavailable. */
export function peerCredentials(socket: Socket): PeerCredentials {
  const fd = socketDescriptor(socket);
  if (fd === undefined) throw new Error('the socket has no descriptor');
  return requireAddon().peerCredentials(fd);
}

function requireAddon(): Addon {
  const state = nativeNet();
  if ('unavailable' in state) throw new Error(state.unavailable);
  return state.addon;
}
