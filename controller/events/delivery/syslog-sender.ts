/**
 * The syslog export's connection: RFC 5424 messages over TCP or TLS, octet-counting framing (RFC 6587 3.4.1:
 * `<length> <message>`), one audit event's JSON as each MSG. One connection, opened when needed and again after
 * it fails, after a pause that doubles per failure up to a cap. A message counts as sent once the socket has
 * flushed it to the kernel: syslog has no acknowledgement, so a connection that dies right after may lose what
 * was in flight; the queue resends anything whose write failed (at-least-once up to the network's own buffers).
 */
import net from 'node:net';
import tls from 'node:tls';
import { hostname } from 'node:os';

export interface SyslogTarget {
  protocol: 'tcp' | 'tls';
  host: string;
  port: number;
  /** PEM of the CA that signed the receiver's certificate (TLS); unset: the system's */
  ca?: string;
}

/** Parses `tcp://host:port` or `tls://host:port`; throws a sentence naming what is wrong. */
export function parseSyslogTarget(url: string, ca?: string): SyslogTarget {
  const parsed = new URL(url);
  const protocol = parsed.protocol.replace(/:$/, '');
  if (protocol !== 'tcp' && protocol !== 'tls')
    throw new Error('--syslog must be tcp://host:port or tls://host:port');
  const port = Number(parsed.port);
  if (!parsed.hostname || !Number.isInteger(port) || port <= 0)
    throw new Error('--syslog needs a host and a port');
  return { protocol, host: parsed.hostname.replace(/^\[|\]$/g, ''), port, ...(ca ? { ca } : {}) };
}

/** PRI of every message: facility 13 (log audit), severity 6 (informational) = 13 * 8 + 6. */
const PRI = 110;
const HOST =
  hostname()
    .replace(/[^\x21-\x7e]/g, '')
    .slice(0, 255) || '-';

/** One RFC 5424 message: `<PRI>1 TIMESTAMP HOST APP PROCID MSGID - MSG`, MSGID the event type. */
export function syslogMessage(body: string, eventType: string, at: Date): string {
  const msgid = eventType.replace(/[^\x21-\x7e]/g, '').slice(0, 32) || '-';
  return `<${PRI}>1 ${at.toISOString()} ${HOST} postern ${process.pid} ${msgid} - ${body}`;
}

/** RFC 6587 octet counting: the length in bytes of the message, a space, the message. */
export function frame(message: string): Buffer {
  const bytes = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from(`${bytes.length} `), bytes]);
}

/** A connection attempt or a write that does not finish within this fails (no stall). */
const IO_TIMEOUT_MS = 10_000;

export class SyslogSender {
  private socket: net.Socket | undefined;
  connected = false;
  lastError: string | null = null;

  constructor(readonly target: SyslogTarget) {}

  /** Sends one message; rejects when the connection cannot be made or the write fails. */
  async send(message: string): Promise<void> {
    // A receiver that closed its side would swallow this write and reset. One turn of the event loop first
    // lets a FIN that already arrived be heard ('end' drops the socket), so the write goes to a new one.
    await new Promise((resolve) => setImmediate(resolve));
    if (this.socket && (this.socket.readableEnded || this.socket.destroyed)) this.drop();
    const socket = this.socket ?? (await this.connect());
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.destroy(new Error(`write not done within ${IO_TIMEOUT_MS} ms`));
      }, IO_TIMEOUT_MS);
      socket.write(frame(message), (err) => {
        clearTimeout(timer);
        if (err) {
          this.drop(err, socket);
          reject(err);
        } else resolve();
      });
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
    this.connected = false;
  }

  private connect(): Promise<net.Socket> {
    const { protocol, host, port, ca } = this.target;
    return new Promise<net.Socket>((resolve, reject) => {
      const socket =
        protocol === 'tls'
          ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ...(ca ? { ca } : {}) })
          : net.connect({ host, port });
      const timer = setTimeout(
        () => socket.destroy(new Error(`no connection within ${IO_TIMEOUT_MS} ms`)),
        IO_TIMEOUT_MS,
      );
      const ready = () => {
        clearTimeout(timer);
        socket.off('error', failed);
        socket.on('error', (err) => this.drop(err, socket));
        socket.on('close', () => this.drop(undefined, socket));
        // The receiver never closes a healthy export: its end means it went away.
        socket.on('end', () => this.drop(new Error('the syslog receiver closed the connection'), socket));
        // The receiver sends nothing; anything it does send is discarded, not buffered.
        socket.on('data', () => undefined);
        this.socket = socket;
        this.connected = true;
        this.lastError = null;
        resolve(socket);
      };
      const failed = (err: Error) => {
        clearTimeout(timer);
        this.lastError = err.message;
        reject(err);
      };
      socket.once(protocol === 'tls' ? 'secureConnect' : 'connect', ready);
      socket.once('error', failed);
    });
  }

  /** Lets `socket` (or the current one) go; a stale socket's late events leave a newer one alone. */
  private drop(err?: Error, socket: net.Socket | undefined = this.socket): void {
    if (socket !== this.socket) return void socket?.destroy();
    if (err) this.lastError = err.message;
    this.socket?.destroy();
    this.socket = undefined;
    this.connected = false;
  }
}
