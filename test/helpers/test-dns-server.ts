/**
 * A tiny DNS server over UDP standing for a machine's "system resolver" in the netns world: it answers A
 * queries for the names in `records` (NOERROR with no answer for their other types) and NXDOMAIN for any
 * other name. Built by hand (a dozen bytes of header, the question echoed, one answer): the tests need
 * exactly this much DNS, and it keeps the test world independent of a DNS library.
 */
import { createSocket, type Socket } from 'node:dgram';

const TYPE_A = 1;
const CLASS_IN = 1;
const NXDOMAIN = 3;

export interface TestDnsServer {
  /** name (lower case, no trailing dot) → IPv4 address; edit it to change the answers */
  records: Map<string, string>;
  /** every name asked, in order (lower case) */
  queries: string[];
  close(): Promise<void>;
}

export async function startTestDnsServer(
  address: string,
  records: Record<string, string>,
  port = 53,
): Promise<TestDnsServer> {
  const socket: Socket = createSocket('udp4');
  const server: TestDnsServer = {
    records: new Map(Object.entries(records)),
    queries: [],
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
  socket.on('message', (query, peer) => {
    const answer = answerTo(query, server);
    if (answer) socket.send(answer, peer.port, peer.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, address, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  return server;
}

/** The question's name and where the question ends, or null for anything that is not one plain question. */
function question(query: Buffer): { name: string; type: number; end: number } | null {
  if (query.length < 12 || query.readUInt16BE(4) !== 1) return null;
  const labels: string[] = [];
  let at = 12;
  while (at < query.length) {
    const length = query[at]!;
    if (length === 0) break;
    if (length > 63 || at + 1 + length > query.length) return null;
    labels.push(query.toString('latin1', at + 1, at + 1 + length));
    at += 1 + length;
  }
  if (at + 5 > query.length) return null;
  return { name: labels.join('.').toLowerCase(), type: query.readUInt16BE(at + 1), end: at + 5 };
}

function answerTo(query: Buffer, server: TestDnsServer): Buffer | null {
  const q = question(query);
  if (!q || query[2]! & 0x80) return null;
  server.queries.push(q.name);
  const address = server.records.get(q.name);
  const answers = address && q.type === TYPE_A ? 1 : 0;
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // id
  // QR, the query's opcode and RD; RA; the response code.
  header[2] = 0x80 | (query[2]! & 0x79);
  header[3] = 0x80 | (address ? 0 : NXDOMAIN);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers, 6);
  const parts = [header, query.subarray(12, q.end)];
  if (answers) {
    const record = Buffer.alloc(16);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(TYPE_A, 2);
    record.writeUInt16BE(CLASS_IN, 4);
    record.writeUInt32BE(60, 6);
    record.writeUInt16BE(4, 10);
    address!.split('.').forEach((octet, i) => (record[12 + i] = Number(octet)));
    parts.push(record);
  }
  return Buffer.concat(parts);
}
