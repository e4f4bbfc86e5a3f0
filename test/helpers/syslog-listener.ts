/**
 * A syslog receiver for the export tests: TCP or TLS on loopback, reading RFC 6587 octet-counted frames and
 * checking each is a well-formed RFC 5424 message (`<PRI>1 TIMESTAMP HOST APP PROCID MSGID SD MSG`), keeping
 * the messages in arrival order. Closing it drops every connection, as a SIEM going down does.
 */
import net from 'node:net';
import tls from 'node:tls';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

export interface SyslogLine {
  pri: number;
  timestamp: string;
  host: string;
  app: string;
  msgid: string;
  msg: string;
}

const RFC5424 =
  /^<(\d{1,3})>1 (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?(?:Z|[+-]\d\d:\d\d)) (\S{1,255}) (\S{1,48}) (\S{1,128}) (\S{1,32}) (-|\[.*?\]) (.*)$/s;

export class SyslogListener {
  readonly lines: SyslogLine[] = [];
  malformed: string[] = [];
  private server!: net.Server;
  private readonly sockets = new Set<net.Socket>();

  constructor(private readonly tlsFiles?: { certFile: string; keyFile: string }) {}

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  async start(port = 0): Promise<this> {
    const onSocket = (socket: net.Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
      let pending = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        for (;;) {
          const space = pending.indexOf(0x20);
          if (space < 0) return;
          const length = Number(pending.subarray(0, space).toString());
          if (pending.length < space + 1 + length) return;
          this.take(pending.subarray(space + 1, space + 1 + length).toString('utf8'));
          pending = pending.subarray(space + 1 + length);
        }
      });
    };
    this.server = this.tlsFiles
      ? tls.createServer(
          { cert: readFileSync(this.tlsFiles.certFile), key: readFileSync(this.tlsFiles.keyFile) },
          onSocket,
        )
      : net.createServer(onSocket);
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    return this;
  }

  private take(text: string): void {
    const m = RFC5424.exec(text);
    if (!m) return void this.malformed.push(text);
    this.lines.push({
      pri: Number(m[1]),
      timestamp: m[2]!,
      host: m[3]!,
      app: m[4]!,
      msgid: m[6]!,
      msg: m[8]!,
    });
  }

  async waitFor(n: number, timeoutMs = 60_000): Promise<SyslogLine[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.lines.length < n) {
      if (Date.now() > deadline) throw new Error(`only ${this.lines.length} of ${n} syslog messages arrived`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return this.lines;
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
