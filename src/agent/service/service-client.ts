/**
 * A client of the agent service's socket (the CLI and the desktop app's main process): connect with a
 * bounded wait, typed requests matched to responses by id, pushed events after `subscribe`.
 */
import { createConnection, type Socket } from 'node:net';
import { Listeners } from '../../common/listeners.js';
import { readFrames, writeFrame } from './service-frames.js';
import {
  isEventFrame,
  isResponseFrame,
  type ErrorBody,
  type ParamsOf,
  type RequestType,
  type ResultOf,
  type ServiceEvent,
} from './service-protocol.js';

/**
 * Where the service listens unless told otherwise (`--socket`, POSTERN_SERVICE_SOCKET): the paths the
 * packaged definitions use (packaging/linux, macos, windows).
 */
export function defaultServiceSocket(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') return '\\\\.\\pipe\\postern-agent';
  if (platform === 'darwin') return '/var/run/postern/agent.sock';
  return '/run/postern/agent.sock';
}

export const DEFAULT_SERVICE_SOCKET = defaultServiceSocket();

export function serviceSocketPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.POSTERN_SERVICE_SOCKET || DEFAULT_SERVICE_SOCKET;
}

/** The service said no (or the connection failed); `code` and `field` as in its error frame. */
export class ServiceError extends Error {
  constructor(
    message: string,
    readonly code: ErrorBody['code'] | 'CONNECTION',
    readonly field?: string,
    /** the connect error's errno code (ENOENT, ECONNREFUSED, EACCES...), when connecting failed */
    readonly errno?: string,
  ) {
    super(message);
  }
}

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class ServiceClient {
  readonly events = new Listeners<ServiceEvent>();
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** why the connection cannot be used any more */
  private ended: ServiceError | undefined;

  private constructor(
    private readonly socket: Socket,
    private readonly timeoutMs: number,
  ) {
    readFrames(socket, (outcome) => {
      if (outcome.kind !== 'frame')
        return this.end(new ServiceError('the service sent an unreadable frame', 'FAILED'));
      const frame = outcome.value;
      if (isEventFrame(frame)) return this.events.emit(frame);
      if (!isResponseFrame(frame)) return;
      if (frame.id === null) {
        // Not about one request: a refusal of this peer, or a frame of ours the service could not read.
        if (frame.error) this.end(new ServiceError(frame.error.message, frame.error.code, frame.error.field));
        return;
      }
      const waiting = this.pending.get(frame.id);
      if (!waiting) return;
      this.pending.delete(frame.id);
      clearTimeout(waiting.timer);
      if (frame.error)
        waiting.reject(new ServiceError(frame.error.message, frame.error.code, frame.error.field));
      else waiting.resolve(frame.result);
    });
    socket.on('close', () => this.end(new ServiceError('the service closed the connection', 'CONNECTION')));
    socket.on('error', () => undefined);
  }

  /** Connects to the socket at `path` within `timeoutMs`. */
  static connect(path: string, timeoutMs = 3000): Promise<ServiceClient> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(path);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(
          new ServiceError(
            `the service did not accept a connection within ${timeoutMs / 1000} s`,
            'CONNECTION',
          ),
        );
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new ServiceClient(socket, timeoutMs));
      });
      socket.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(new ServiceError(error.message, 'CONNECTION', undefined, error.code));
      });
    });
  }

  request<T extends RequestType>(
    type: T,
    ...params: ParamsOf<T> extends void ? [] : [ParamsOf<T>]
  ): Promise<ResultOf<T>> {
    if (this.ended) return Promise.reject(this.ended);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new ServiceError(
            `the service did not answer '${type}' within ${this.timeoutMs / 1000} s`,
            'FAILED',
          ),
        );
      }, this.timeoutMs);
      this.pending.set(id, { resolve: resolve as (r: unknown) => void, reject, timer });
      writeFrame(this.socket, params.length ? { id, type, params: params[0] } : { id, type });
    });
  }

  /** Sends a line as it is (tests of the service's frame checks). */
  sendRaw(line: string): void {
    this.socket.write(line);
  }

  close(): void {
    this.socket.destroy();
  }

  private end(error: ServiceError): void {
    this.ended ??= error;
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(this.ended);
      this.pending.delete(id);
    }
    if (!this.socket.destroyed) this.socket.destroy();
  }
}
