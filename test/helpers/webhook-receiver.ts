/**
 * A real webhook receiver on loopback for the delivery tests: verifies each request's Postern-Signature with
 * the subscription's secret (as docs/AUDIT-DELIVERY.md tells receivers to) and keeps the events it accepted,
 * in arrival order. `failNext(n)` answers the next n requests 503, as a receiver that is down does.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from '../../controller/events/delivery/signature.js';

export interface ReceivedEvent {
  id: string;
  type: string;
  [key: string]: unknown;
}

export class WebhookReceiver {
  readonly accepted: ReceivedEvent[] = [];
  /** requests answered 503 on purpose, and requests whose signature did not verify */
  refused = 0;
  badSignatures = 0;
  private failing = 0;
  private waiters: (() => void)[] = [];
  private server!: http.Server;

  constructor(readonly secret: string) {}

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const header = String(req.headers['postern-signature'] ?? '');
        if (!verify(this.secret, body, header, Math.floor(Date.now() / 1000))) {
          this.badSignatures++;
          res.writeHead(401).end('bad signature');
          return;
        }
        if (this.failing > 0) {
          this.failing--;
          this.refused++;
          res.writeHead(503).end('down for maintenance');
          return;
        }
        this.accepted.push(JSON.parse(body) as ReceivedEvent);
        res.writeHead(204).end();
        for (const w of this.waiters.splice(0)) w();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  failNext(n: number): void {
    this.failing = n;
  }

  /** Resolves once `n` events have been accepted (generous bound: the machine may be loaded). */
  async waitFor(n: number, timeoutMs = 60_000): Promise<ReceivedEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.accepted.length < n) {
      if (Date.now() > deadline) throw new Error(`only ${this.accepted.length} of ${n} events arrived`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
    return this.accepted;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
