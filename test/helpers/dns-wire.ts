/**
 * DNS over real loopback sockets for the intercept resolver's tests and bench: a small upstream server
 * (UDP and TCP on one port, A records from a table, NXDOMAIN otherwise, written with dns-packet as a real
 * server would) and clients that send one query and wait for its answer.
 */
import { createSocket } from 'node:dgram';
import { connect, createServer, type Socket } from 'node:net';
import { bindUdpAndTcp } from '../../src/agent/intercept/dns/dual-bind.js';
import { decode, encode, type DecodedPacket, type Packet, type RecordType } from 'dns-packet';

export interface FakeUpstream {
  /** `127.0.0.1:PORT`, as the resolver's upstream list takes it */
  address: string;
  port: number;
  /** queries received, by transport */
  received: { udp: number; tcp: number };
  stop(): Promise<void>;
}

/** The answer to a query's first question; undefined for bytes that are no query (left unanswered). */
function answerFor(message: Buffer, records: Record<string, string>): Buffer | undefined {
  let query: DecodedPacket;
  try {
    query = decode(message);
  } catch {
    return undefined;
  }
  const question = query.questions?.[0];
  if (!question) return undefined;
  const address = records[question.name.toLowerCase()];
  const answers =
    address && question.type === 'A'
      ? [{ type: 'A' as const, name: question.name, ttl: 300, class: 'IN' as const, data: address }]
      : [];
  return encode({
    type: 'response',
    id: query.id,
    // RD | RA, and NXDOMAIN (3) for a name it does not know
    flags: 0x0180 | (address ? 0 : 3),
    questions: [question],
    answers,
  });
}

export async function startFakeUpstream(records: Record<string, string>): Promise<FakeUpstream> {
  const received = { udp: 0, tcp: 0 };
  const clients = new Set<Socket>();
  const { udp, tcp } = await bindUdpAndTcp('127.0.0.1', 0, () => createServer(onTcpClient));
  const port = udp.address().port;
  udp.on('message', (message, peer) => {
    received.udp++;
    const reply = answerFor(message, records);
    if (reply) udp.send(reply, peer.port, peer.address);
  });
  function onTcpClient(socket: Socket): void {
    clients.add(socket);
    socket.on('close', () => clients.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const size = buffered.readUInt16BE(0);
        received.tcp++;
        const reply = answerFor(buffered.subarray(2, 2 + size), records);
        buffered = buffered.subarray(2 + size);
        if (!reply) continue;
        const length = Buffer.alloc(2);
        length.writeUInt16BE(reply.length);
        socket.write(Buffer.concat([length, reply]));
      }
    });
  }
  return {
    address: `127.0.0.1:${port}`,
    port,
    received,
    stop: async () => {
      for (const client of clients) client.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };
}

let nextId = 1;
export function query(name: string, type: RecordType = 'A', extra: Partial<Packet> = {}): Buffer {
  nextId = (nextId % 65535) + 1;
  return encode({
    type: 'query',
    id: nextId,
    flags: 0x0100,
    questions: [{ type, name, class: 'IN' }],
    ...extra,
  });
}

/** Sends raw bytes over UDP and resolves with the first datagram back, or undefined after `timeoutMs`. */
export function udpExchange(port: number, message: Buffer, timeoutMs = 5000): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    const finish = (reply: Buffer | undefined) => {
      clearTimeout(timer);
      socket.close();
      resolve(reply);
    };
    socket.once('message', (reply) => finish(reply));
    socket.send(message, port, '127.0.0.1');
  });
}

/** Sends one length-prefixed message over a new TCP connection and resolves with the message back. */
export function tcpExchange(port: number, message: Buffer, timeoutMs = 5000): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let buffered = Buffer.alloc(0);
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    const finish = (reply: Buffer | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(reply);
    };
    socket.on('error', () => finish(undefined));
    socket.on('close', () => finish(undefined));
    socket.on('connect', () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(message.length);
      socket.write(Buffer.concat([length, message]));
    });
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0))
        finish(buffered.subarray(2, 2 + buffered.readUInt16BE(0)));
    });
  });
}

/** The answer's response code (0 NOERROR, 1 FORMERR, 2 SERVFAIL, 3 NXDOMAIN). */
export const rcodeOf = (reply: Buffer) => reply.readUInt16BE(2) & 0x0f;
