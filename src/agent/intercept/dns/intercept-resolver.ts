/**
 * The agent's DNS resolver in intercept mode (listening on 100.64.0.2:53, UDP and TCP). It answers A for an
 * intercepted name with that name's address from the pool, and "no data" for any other type of an
 * intercepted name; every other query is forwarded byte for byte to the system's previous DNS servers and
 * their answer relayed byte for byte (the same id), so nothing changes for names Postern does not intercept.
 *
 * The data path asks `nameFor(address)` which name and service a connection to a pool address was meant for.
 */
import type { Socket as UdpSocket } from 'node:dgram';
import { setMaxListeners } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { bindUdpAndTcp } from './dual-bind.js';
import { decode, type DecodedPacket, type Question } from 'dns-packet';
import { AddressPool, AddressPoolExhaustedError } from './address-pool.js';
import { errorAnswer, interceptedAnswer, RCODE } from './dns-answers.js';
import { InterceptNames, type NamePattern } from './intercept-names.js';
import { LocalSources } from './local-sources.js';
import { normalizeName } from './dns-name.js';
import { exchangeTcp, exchangeUdp, parseUpstream, type Upstream } from './upstream-exchange.js';

/**
 * TTL of an intercepted answer. Short because an answer outlives the agent's view of it: when access ends
 * the name is released, and after a restart the pool may hand the address to another name; a cached answer
 * then points at nothing, or at another service, for at most this long. Answering again costs well under a
 * millisecond locally, so a short TTL costs clients nothing they would notice.
 */
export const ANSWER_TTL_SECONDS = 30;
/**
 * How long one upstream server gets before the next is tried. Two servers then fit within glibc's 5 s
 * first-try timeout, so a client gets SERVFAIL (and tries its own next server) rather than silence.
 */
export const UPSTREAM_TIMEOUT_MS = 2000;
/**
 * Forwarded queries waiting for an upstream at once; beyond it a query gets SERVFAIL at once. Each holds a
 * socket (a file descriptor) for up to the upstream timeouts, so this bounds what a local flood of queries
 * for names that never answer can take from the agent's descriptors (which its tunnels need). A busy
 * machine's stub resolver has a few dozen queries out at a time.
 */
export const MAX_FORWARDS_IN_FLIGHT = 256;
/** Largest query read (UDP datagram or TCP message); a query is a name and a few options, well under 1 KiB. */
export const MAX_QUERY_BYTES = 4096;
/** TCP clients connected at once, and how long one may sit idle (RFC 7766 suggests seconds). */
export const MAX_TCP_CLIENTS = 64;
export const TCP_IDLE_MS = 10_000;

export type Transport = 'udp' | 'tcp';

/** One query answered, for the CLI's log. */
export interface ResolverAnswer {
  transport: Transport;
  /** the question's name (normalized), '' when the query had no readable question */
  name: string;
  /** the question's type (`A`, `AAAA`, …), '' when unreadable */
  type: string;
  outcome:
    'intercepted' | 'forwarded' | 'upstream-failed' | 'busy' | 'malformed' | 'pool-exhausted' | 'failed';
  service?: string;
  address?: string;
}

export interface InterceptResolverOptions {
  host: string;
  /** 0 for any free port (UDP and TCP then share the port found) */
  port: number;
  /** the servers other names go to, `ip[:port]`, tried in order */
  upstreams: readonly string[];
  pool?: AddressPool;
  ttlSeconds?: number;
  upstreamTimeoutMs?: number;
  maxForwardsInFlight?: number;
  tcpIdleMs?: number;
  onAnswer?: (answer: ResolverAnswer) => void;
  /** which client addresses are served; by default loopback and this machine's own addresses */
  acceptFrom?: (address: string) => boolean;
}

export interface BoundAddresses {
  udp: AddressInfo;
  tcp: AddressInfo;
}

const isResponse = (message: Buffer) => (message[2]! & 0x80) !== 0;

function framed(message: Buffer): Buffer {
  const length = Buffer.alloc(2);
  length.writeUInt16BE(message.length);
  return Buffer.concat([length, message]);
}

export class InterceptResolver {
  readonly pool: AddressPool;
  private names = new InterceptNames();
  private upstreams: Upstream[];
  private readonly ttl: number;
  private readonly upstreamTimeoutMs: number;
  private readonly maxForwards: number;
  private readonly acceptFrom: (address: string) => boolean;
  private forwardsInFlight = 0;
  private udp: UdpSocket | undefined;
  private tcp: Server | undefined;
  private readonly tcpClients = new Set<Socket>();
  private stopping = new AbortController();

  constructor(private readonly options: InterceptResolverOptions) {
    this.pool = options.pool ?? new AddressPool();
    this.upstreams = options.upstreams.map(parseUpstream);
    this.ttl = options.ttlSeconds ?? ANSWER_TTL_SECONDS;
    this.upstreamTimeoutMs = options.upstreamTimeoutMs ?? UPSTREAM_TIMEOUT_MS;
    this.maxForwards = options.maxForwardsInFlight ?? MAX_FORWARDS_IN_FLIGHT;
    const local = new LocalSources();
    // Its own address too: a query the machine sends to 100.64.0.2 comes from 100.64.0.2, and the device that
    // address sits on (postern0, no carrier) is missing from Node's interface list. Linux drops a packet from the
    // network that claims one of the machine's own addresses as its source, so this admits nothing remote.
    this.acceptFrom = options.acceptFrom ?? ((address) => address === options.host || local.accepts(address));
  }

  /**
   * Replaces the intercepted names. Names no longer intercepted give their addresses back (a connection to
   * one then finds no name and is refused). Returns the patterns that are not names, left out.
   */
  setNames(patterns: Iterable<NamePattern>): string[] {
    this.names = new InterceptNames(patterns);
    for (const name of this.pool.names()) if (this.names.match(name) === undefined) this.pool.release(name);
    return this.names.rejected;
  }

  /** The systemd-resolved routing domains for the current names (`~corp`, `~wiki.corp`). */
  domains(): string[] {
    return this.names.domains();
  }

  setUpstreams(upstreams: readonly string[]): void {
    this.upstreams = upstreams.map(parseUpstream);
  }

  /** The intercepted name and service a pool address was handed out for, if it still is. */
  nameFor(address: string): { name: string; service: string } | undefined {
    const name = this.pool.nameOf(address);
    const service = name === undefined ? undefined : this.names.match(name);
    return name === undefined || service === undefined ? undefined : { name, service };
  }

  async start(): Promise<BoundAddresses> {
    if (this.udp) throw new Error('the intercept resolver is already started');
    this.stopping = new AbortController();
    // One signal is shared by every forwarded query in flight.
    setMaxListeners(0, this.stopping.signal);
    const { udp, tcp } = await bindUdpAndTcp(this.options.host, this.options.port, () => {
      const server = createServer((socket) => this.onTcpClient(socket));
      server.maxConnections = MAX_TCP_CLIENTS;
      return server;
    });
    udp.on('message', (message, peer) => this.onUdpQuery(message, peer.address, peer.port));
    this.udp = udp;
    this.tcp = tcp;
    const bound = { udp: udp.address(), tcp: tcp.address() as AddressInfo };
    if (this.upstreams.some((u) => u.host === bound.udp.address && u.port === bound.udp.port)) {
      await this.stop();
      throw new Error(
        `the intercept resolver cannot forward to itself (${bound.udp.address}:${bound.udp.port})`,
      );
    }
    return bound;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    const udp = this.udp;
    const tcp = this.tcp;
    this.udp = undefined;
    this.tcp = undefined;
    for (const client of this.tcpClients) client.destroy();
    this.tcpClients.clear();
    await Promise.all([
      udp && new Promise<void>((resolve) => udp.close(() => resolve())),
      tcp && new Promise<void>((resolve) => tcp.close(() => resolve())),
    ]);
  }

  private onUdpQuery(message: Buffer, address: string, port: number): void {
    if (!this.acceptFrom(address)) return;
    const udp = this.udp;
    void this.answer(message, 'udp').then((reply) => {
      if (reply && udp && udp === this.udp) udp.send(reply, port, address);
    });
  }

  private onTcpClient(socket: Socket): void {
    socket.on('error', () => undefined);
    if (!this.acceptFrom(socket.remoteAddress ?? '')) {
      socket.destroy();
      return;
    }
    this.tcpClients.add(socket);
    socket.on('close', () => this.tcpClients.delete(socket));
    socket.setNoDelay(true);
    socket.setTimeout(this.options.tcpIdleMs ?? TCP_IDLE_MS, () => socket.destroy());
    socket.on('drain', () => socket.resume());
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2) {
        const size = buffered.readUInt16BE(0);
        // A length no query has ends the connection: there is no way to find the next message after it.
        if (size < 12 || size > MAX_QUERY_BYTES) {
          socket.destroy();
          return;
        }
        if (buffered.length < 2 + size) return;
        const query = Buffer.from(buffered.subarray(2, 2 + size));
        buffered = buffered.subarray(2 + size);
        void this.answer(query, 'tcp').then((reply) => {
          if (!reply || socket.destroyed) return;
          // A client that sends queries and never reads the answers must not make the agent buffer them all:
          // reading stops until the answers already written have drained to it.
          if (!socket.write(framed(reply))) socket.pause();
        });
      }
    });
  }

  /** The reply to one query, or undefined to drop it. Never throws: a fault is that query's SERVFAIL. */
  private async answer(query: Buffer, transport: Transport): Promise<Buffer | undefined> {
    try {
      return await this.reply(query, transport);
    } catch {
      this.report({ transport, name: '', type: '', outcome: 'failed' });
      return errorAnswer(query, RCODE.SERVFAIL);
    }
  }

  private async reply(query: Buffer, transport: Transport): Promise<Buffer | undefined> {
    // Too short to have a header (nothing to answer with), too long for a query, or an answer (answering
    // answers could loop between two resolvers): dropped.
    if (query.length < 12 || query.length > MAX_QUERY_BYTES || isResponse(query)) return undefined;
    let packet: DecodedPacket;
    try {
      packet = decode(query);
    } catch {
      this.report({ transport, name: '', type: '', outcome: 'malformed' });
      return errorAnswer(query, RCODE.FORMERR);
    }
    const question = packet.questions?.length === 1 ? packet.questions[0] : undefined;
    const opcode = (query[2]! >> 3) & 0x0f;
    const name = question ? normalizeName(question.name) : '';
    const type = question?.type ?? '';
    if (question && opcode === 0 && (question.class ?? 'IN') === 'IN') {
      const service = this.names.match(name);
      if (service !== undefined) return this.intercepted(packet, query, question, service, transport);
    }
    return this.forward(query, question, transport, name, type);
  }

  private intercepted(
    packet: DecodedPacket,
    query: Buffer,
    question: Question,
    service: string,
    transport: Transport,
  ): Buffer {
    const name = normalizeName(question.name);
    let address: string;
    try {
      address = this.pool.allocate(name);
    } catch (error) {
      if (!(error instanceof AddressPoolExhaustedError)) throw error;
      this.report({ transport, name, type: question.type, outcome: 'pool-exhausted', service });
      return errorAnswer(query, RCODE.SERVFAIL, question);
    }
    this.report({ transport, name, type: question.type, outcome: 'intercepted', service, address });
    try {
      return interceptedAnswer(packet, question, address, this.ttl);
    } catch {
      this.report({ transport, name, type: question.type, outcome: 'malformed', service });
      return errorAnswer(query, RCODE.FORMERR);
    }
  }

  private async forward(
    query: Buffer,
    question: Question | undefined,
    transport: Transport,
    name: string,
    type: string,
  ): Promise<Buffer> {
    if (this.forwardsInFlight >= this.maxForwards) {
      this.report({ transport, name, type, outcome: 'busy' });
      return errorAnswer(query, RCODE.SERVFAIL, question);
    }
    this.forwardsInFlight++;
    try {
      const exchange = transport === 'tcp' ? exchangeTcp : exchangeUdp;
      for (const upstream of this.upstreams) {
        const reply = await exchange(upstream, query, this.upstreamTimeoutMs, this.stopping.signal);
        if (reply) {
          this.report({ transport, name, type, outcome: 'forwarded' });
          return reply;
        }
      }
    } finally {
      this.forwardsInFlight--;
    }
    this.report({ transport, name, type, outcome: 'upstream-failed' });
    return errorAnswer(query, RCODE.SERVFAIL, question);
  }

  private report(answer: ResolverAnswer): void {
    try {
      this.options.onAnswer?.(answer);
    } catch {
      // a logging callback's fault is not the query's
    }
  }
}
