import { spawn } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nativeNet, originalDestination, peerCredentials } from '../../../src/common/native-net.js';

const linux = process.platform === 'linux';
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** The server side of one connection made by `connect`. */
function accepted(server: Server, connect: () => void): Promise<Socket> {
  return new Promise((resolve) => {
    server.once('connection', resolve);
    connect();
  });
}

function listen(server: Server, where: string | number): Promise<void> {
  servers.push(server);
  return new Promise((resolve) => server.listen(where, resolve));
}

describe.skipIf(!linux)('the native socket addon (Linux)', () => {
  it('is built by the install step', () => {
    expect(nativeNet()).toHaveProperty('addon');
  });

  it("reads a Unix socket peer's pid, uid and gid", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'postern-native-'));
    try {
      const path = join(dir, 's');
      const server = createServer();
      await listen(server, path);
      const client = createConnection(path);
      const socket = await accepted(server, () => undefined);
      expect(peerCredentials(socket)).toEqual({
        pid: process.pid,
        uid: process.getuid!(),
        gid: process.getgid!(),
      });
      client.destroy();
      socket.destroy();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(process.getuid?.() !== 0)("reads another user's uid (a client run as nobody)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'postern-native-'));
    chmodSync(dir, 0o755);
    try {
      const path = join(dir, 's');
      const server = createServer();
      await listen(server, path);
      chmodSync(path, 0o777);
      const socket = await accepted(server, () => {
        const child = spawn(
          process.execPath,
          [
            '-e',
            `const s=require('net').createConnection(${JSON.stringify(path)});setTimeout(()=>s.end(),5000)`,
          ],
          { uid: 65534, gid: 65534, stdio: 'ignore' },
        );
        child.on('error', () => undefined);
      });
      const credentials = peerCredentials(socket);
      expect(credentials.uid).toBe(65534);
      expect(credentials.gid).toBe(65534);
      expect(credentials.pid).not.toBe(process.pid);
      socket.destroy();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says a connection that was not redirected has no original destination', async () => {
    const server = createServer();
    await listen(server, 0);
    const port = (server.address() as { port: number }).port;
    let client: Socket | undefined;
    const socket = await accepted(server, () => (client = createConnection(port, '127.0.0.1')));
    expect(originalDestination(socket)).toBeNull();
    client?.destroy();
    socket.destroy();
  });

  it('refuses a descriptor that is not a socket with a clear error, not a crash', () => {
    const state = nativeNet();
    if (!('addon' in state)) throw new Error(state.unavailable);
    expect(() => state.addon.peerCredentials(-1)).toThrow(/descriptor/);
    const file = openSync(process.execPath, 'r');
    try {
      expect(() => state.addon.peerCredentials(file)).toThrow(/SO_PEERCRED.*non-socket/i);
    } finally {
      closeSync(file);
    }
  });
});
