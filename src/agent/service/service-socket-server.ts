/**
 * The agent service's Unix socket: each connection's peer checked (peer-access.ts) before anything is
 * read from it, then request frames checked (service-protocol.ts) and answered by the handlers, and events
 * pushed to connections that subscribed. A bad frame gets an error frame naming the field; whatever goes
 * wrong with one connection closes that connection only.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { unlinkSync } from 'node:fs';
import { peerCredentials } from '../../common/native-net.js';
import { errorMessage, type AgentLogger } from '../../common/logger.js';
import { decideAccess, groupId, RefusalLog, type AccessPolicy, type SystemFiles } from './peer-access.js';
import { readFrames, writeFrame } from './service-frames.js';
import {
  checkRequestFrame,
  idOf,
  type ErrorBody,
  type ParamsOf,
  type RequestType,
  type ResultOf,
  type ServiceEvent,
} from './service-protocol.js';
import { clearStaleSocket, prepareFolder, setSocketAccess } from './socket-file.js';

/** One accepted, allowed connection. */
export interface ServiceConnection {
  readonly uid: number;
  /** from now on, events go to this connection too */
  subscribe(): void;
}

export type RequestHandlers = {
  [T in RequestType]: (
    params: ParamsOf<T>,
    connection: ServiceConnection,
  ) => Promise<ResultOf<T>> | ResultOf<T>;
};

export interface SocketServerOptions {
  path: string;
  policy: AccessPolicy;
  handlers: RequestHandlers;
  logger: AgentLogger;
  /** /etc/group and /proc, replaceable in tests */
  files?: SystemFiles;
}

/**
 * Connections open at once (allowed ones, and refused ones in their closing grace); beyond it Node closes a new
 * connection before anything is read or written. The desktop app holds one and each CLI command one for a
 * moment; the cap keeps a local loop of connections from taking the descriptors the service's tunnels need.
 */
export const MAX_SERVICE_CONNECTIONS = 128;

/** How long a connection being closed (refused, or past the frame cap) may keep its own side open. */
export const CLOSING_GRACE_MS = 1000;

/**
 * Sends what is queued and closes the connection for good. `end()` alone only half-closes it: a peer that
 * keeps its own side open would hold one of the service's descriptors for as long as it likes, and a loop of
 * such peers would take them all, so the connection is destroyed once the peer ends it or after the grace.
 * What the peer still sends is read and dropped meanwhile: a Unix socket closed with unread data resets its
 * peer, which could then lose the refusal it has not read yet.
 */
function closeAfterFlush(socket: Socket): void {
  socket.on('data', () => undefined);
  socket.resume();
  socket.end();
  setTimeout(() => socket.destroy(), CLOSING_GRACE_MS).unref();
}

export class ServiceSocketServer {
  private readonly subscribers = new Set<Socket>();
  private readonly sockets = new Set<Socket>();
  private readonly refusals: RefusalLog;

  private constructor(
    private readonly server: Server,
    private readonly options: SocketServerOptions,
  ) {
    this.refusals = new RefusalLog((line) => options.logger.warn(line));
    server.on('connection', (socket) => this.accept(socket));
  }

  /** Listens at `options.path`; rejects when another service answers there. */
  static async listen(options: SocketServerOptions): Promise<ServiceSocketServer> {
    prepareFolder(options.path);
    await clearStaleSocket(options.path);
    const server = createServer();
    server.maxConnections = MAX_SERVICE_CONNECTIONS;
    const instance = new ServiceSocketServer(server, options);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { allowGroup, allowUids } = options.policy;
    const gid = allowGroup === undefined ? undefined : groupId(allowGroup, options.files?.groupFile);
    setSocketAccess(options.path, gid, allowUids.length > 0);
    return instance;
  }

  get path(): string {
    return this.options.path;
  }

  broadcast(event: ServiceEvent): void {
    for (const socket of this.subscribers) this.send(socket, event);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    try {
      unlinkSync(this.options.path);
    } catch {
      // already gone
    }
  }

  private accept(socket: Socket): void {
    socket.on('error', () => undefined);
    let uid: number;
    try {
      const peer = peerCredentials(socket);
      const decision = decideAccess(peer, this.options.policy, this.options.files);
      if (!decision.allowed) {
        this.refusals.refused(peer.uid, decision.reason);
        this.send(socket, { id: null, error: { code: 'NOT_ALLOWED', message: decision.reason } });
        return closeAfterFlush(socket);
      }
      uid = peer.uid;
    } catch (error) {
      this.options.logger.warn(`could not check a connection's peer: ${errorMessage(error)}`);
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.on('close', () => {
      this.sockets.delete(socket);
      this.subscribers.delete(socket);
    });
    const connection: ServiceConnection = { uid, subscribe: () => this.subscribers.add(socket) };
    readFrames(socket, (outcome) => {
      if (outcome.kind === 'too-large') {
        this.fail(socket, null, {
          code: 'INVALID_FRAME',
          field: 'frame',
          message: 'the frame is larger than the 64 KiB cap; closing the connection',
        });
        return closeAfterFlush(socket);
      }
      if (outcome.kind === 'not-json') {
        this.fail(socket, null, {
          code: 'INVALID_FRAME',
          field: 'frame',
          message: `the frame is not JSON: ${outcome.message}`,
        });
        return;
      }
      void this.handle(socket, connection, outcome.value);
    });
  }

  private async handle(socket: Socket, connection: ServiceConnection, value: unknown): Promise<void> {
    const checked = checkRequestFrame(value);
    if ('problem' in checked) {
      const { field, message } = checked.problem;
      return this.fail(socket, idOf(value), { code: 'INVALID_FRAME', field, message });
    }
    const { id, type, params } = checked.frame;
    try {
      const handler = this.options.handlers[type] as (p: unknown, c: ServiceConnection) => unknown;
      const result = await handler(params, connection);
      this.send(socket, { id, result });
    } catch (error) {
      this.fail(socket, id, { code: 'FAILED', message: errorMessage(error) });
    }
  }

  private fail(socket: Socket, id: number | null, error: ErrorBody): void {
    this.send(socket, { id, error });
  }

  private send(socket: Socket, frame: unknown): void {
    try {
      writeFrame(socket, frame);
    } catch (error) {
      // Over the cap: say so in a frame that fits rather than sending nothing.
      const id = (frame as { id?: number | null }).id ?? null;
      writeFrame(socket, { id, error: { code: 'FAILED', message: errorMessage(error) } });
    }
  }
}
