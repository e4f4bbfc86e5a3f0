/**
 * The answers the intercept resolver writes itself, as DNS wire bytes (dns-packet does the encoding). Every
 * answer repeats the query's id and question, as stub resolvers check both.
 */
import {
  AUTHORITATIVE_ANSWER,
  RECURSION_AVAILABLE,
  RECURSION_DESIRED,
  encode,
  type Answer,
  type DecodedPacket,
  type Question,
} from 'dns-packet';

export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2 } as const;

/** The payload size announced back to EDNS clients: the DNS Flag Day 2020 size, which avoids fragmentation. */
const EDNS_PAYLOAD = 1232;

const QR = 0x8000;
const OPCODE_AND_RD = 0x7900;

function flagsFor(query: DecodedPacket, extra: number): number {
  return (query.flag_rd ? RECURSION_DESIRED : 0) | RECURSION_AVAILABLE | extra;
}

/**
 * An authoritative answer for an intercepted name: the address for A, no records (NOERROR, "no data") for
 * AAAA and every other type, so a client asking AAAA then A moves on to A at once instead of treating the
 * name as absent (NXDOMAIN would make it give up on the name).
 */
export function interceptedAnswer(
  query: DecodedPacket,
  question: Question,
  address: string,
  ttl: number,
): Buffer {
  const answers: Answer[] =
    question.type === 'A' ? [{ type: 'A', name: question.name, class: 'IN', ttl, data: address }] : [];
  const edns = query.additionals?.some((record) => record.type === 'OPT');
  return encode({
    type: 'response',
    id: query.id,
    flags: flagsFor(query, AUTHORITATIVE_ANSWER),
    questions: [question],
    answers,
    additionals: edns
      ? [
          {
            type: 'OPT',
            name: '.',
            udpPayloadSize: EDNS_PAYLOAD,
            extendedRcode: 0,
            ednsVersion: 0,
            flags: 0,
            flag_do: false,
            options: [],
          },
        ]
      : [],
  });
}

/**
 * An error answer (FORMERR, SERVFAIL) built from the raw query's header: the id, opcode and RD bit kept, the
 * question repeated when the query had a readable one, and nothing else.
 */
export function errorAnswer(rawQuery: Buffer, rcode: number, question?: Question): Buffer {
  if (question) {
    try {
      return encode({
        type: 'response',
        id: rawQuery.readUInt16BE(0),
        flags: ((rawQuery.readUInt16BE(2) & OPCODE_AND_RD) | RECURSION_AVAILABLE | rcode) & 0x7fff,
        questions: [question],
      });
    } catch {
      // a question dns-packet read but cannot write back: answer with the header alone
    }
  }
  const header = Buffer.alloc(12);
  header.writeUInt16BE(rawQuery.readUInt16BE(0), 0);
  header.writeUInt16BE(QR | (rawQuery.readUInt16BE(2) & OPCODE_AND_RD) | RECURSION_AVAILABLE | rcode, 2);
  return header;
}
