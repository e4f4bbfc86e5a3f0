/**
 * The agent's reader of the controller's event stream against hostile and broken streams, over real HTTP:
 * random bytes, events of the wrong shape, line endings of every kind, messages cut by a closed connection
 * and one that never ends. Only events of the documented shape reach the agent, a good event after the
 * garbage still arrives, and nothing the stream carries throws out of the reader.
 */
import fc from 'fast-check';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentEvents } from '../../../src/agent/client/agent-events.js';
import { EventStreamParser, MAX_EVENT_CHARS } from '../../../src/agent/client/event-stream-parser.js';
import type { AgentEvent } from '../../../src/api/data-plane.js';
import { waitFor } from '../../helpers/data-plane-world.js';

/** The shapes the controller documents; anything else reaching the agent is a failure of the reader. */
function documented(event: AgentEvent): boolean {
  const data = event.data as unknown as Record<string, unknown>;
  if (event.event === 'service-updates')
    return Object.keys(data).join() === 'lastChangeAt' && typeof data.lastChangeAt === 'string';
  if (event.event === 'sessions-removed')
    return (
      Object.keys(data).join() === 'sessionIds' &&
      Array.isArray(data.sessionIds) &&
      data.sessionIds.every((id) => typeof id === 'string')
    );
  if (event.event === 'mfa-changed') return !Array.isArray(data) && Object.keys(data).length === 0;
  return false;
}

const marker = (tag: string) => `event: service-updates\ndata: {"lastChangeAt":"${tag}"}\n\n`;

describe('the agent reading the controller event stream', () => {
  let server: Server;
  let baseUrl: string;
  /** what each new connection is served, in order; the last one stays open */
  const streams: ((response: ServerResponse) => void)[] = [];
  let open: ServerResponse | undefined;
  let connections = 0;
  let reader: AgentEvents | undefined;
  const received: AgentEvent[] = [];
  const faults: Error[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      connections++;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      open = response;
      (streams.shift() ?? (() => undefined))(response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterEach(() => {
    reader?.stop();
    received.length = 0;
    faults.length = 0;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function read(onEvent: (event: AgentEvent) => void = (e) => received.push(e)): void {
    reader = new AgentEvents({
      baseUrl,
      token: () => 'a-session-token',
      onEvent,
      onError: (err) => faults.push(err),
    });
    reader.start();
  }

  const arrived = (tag: string) =>
    waitFor(
      () => received.some((e) => e.event === 'service-updates' && e.data.lastChangeAt === tag),
      15_000,
      `the event ${tag}`,
    );

  it('reads events whatever the line endings (CRLF, CR, LF), with comments between', async () => {
    const before = connections;
    read();
    await waitFor(() => connections > before, 15_000, 'a connection');
    open!.write(': keepalive\r\n\r\nevent: service-updates\r\ndata: {"lastChangeAt":"crlf"}\r\n\r\n');
    open!.write('event: sessions-removed\rdata: {"sessionIds":["s1"]}\r\r');
    open!.write(marker('lf'));
    await arrived('lf');
    expect(received).toEqual([
      { event: 'service-updates', data: { lastChangeAt: 'crlf' } },
      { event: 'sessions-removed', data: { sessionIds: ['s1'] } },
      { event: 'service-updates', data: { lastChangeAt: 'lf' } },
    ]);
  });

  it('hands the agent only events of the documented shape', async () => {
    const before = connections;
    read();
    await waitFor(() => connections > before, 15_000, 'a connection');
    for (const data of ['5', 'null', '"text"', '[]', '{"sessionIds":5}', '{"sessionIds":[1,{}]}', '{'])
      open!.write(`event: sessions-removed\ndata: ${data}\n\n`);
    for (const data of ['5', 'null', '"text"', '[]', '{"identityId":"someone-else"}', '{'])
      open!.write(`event: mfa-changed\ndata: ${data}\n\n`);
    open!.write('event: service-updates\ndata: {"lastChangeAt":7}\n\nevent: unknown\ndata: {}\n\n');
    open!.write('event: mfa-changed\ndata: {}\n\n');
    open!.write(marker('shape'));
    await arrived('shape');
    expect(received).toEqual([
      { event: 'mfa-changed', data: {} },
      { event: 'service-updates', data: { lastChangeAt: 'shape' } },
    ]);
  });

  it('survives random bytes on one stream, and a good event after them still arrives', async () => {
    const before = connections;
    read();
    await waitFor(() => connections > before, 15_000, 'a connection');
    const stream = open!;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
            fc
              .array(
                fc.constantFrom(
                  'event:',
                  'data:',
                  ':',
                  ' ',
                  '\r',
                  '\n',
                  '{',
                  '}',
                  '"',
                  'sessionIds',
                  '[',
                  ',',
                ),
              )
              .map((parts) => Buffer.from(parts.join(''))),
          ),
          { maxLength: 8 },
        ),
        async (chunks) => {
          const tag = `run-${run++}`;
          for (const chunk of chunks) stream.write(chunk);
          // a blank line ends whatever the noise left open (a CR eats one LF, so three)
          stream.write(`\n\n\n${marker(tag)}`);
          await arrived(tag);
        },
      ),
      { numRuns: 150 },
    );
    expect(received.filter((e) => !documented(e))).toEqual([]);
    expect(connections).toBe(before + 1);
    expect(faults).toEqual([]);
  }, 120_000);

  it('a message cut by a closed connection is dropped, and the next connection is read', async () => {
    streams.push((response) => {
      response.write('event: sessions-removed\ndata: {"sessionIds":["cut');
      setTimeout(() => response.destroy(), 50);
    });
    streams.push((response) => response.write(marker('after-cut')));
    read();
    await arrived('after-cut');
    expect(received).toEqual([{ event: 'service-updates', data: { lastChangeAt: 'after-cut' } }]);
  });

  it('a message that never ends is cut at the bound, and the next connection is read', async () => {
    const before = connections;
    streams.push((response) => {
      response.write('event: service-updates\ndata: ');
      response.write('x'.repeat(MAX_EVENT_CHARS + 1));
    });
    streams.push((response) => response.write(marker('after-flood')));
    read();
    await arrived('after-flood');
    expect(connections).toBe(before + 2);
  });

  it('a fault handling an event ends that stream only: it is reported and the reader reconnects', async () => {
    const before = connections;
    streams.push((response) => response.write(marker('throws')));
    streams.push((response) => response.write(marker('after-fault')));
    read((event) => {
      if (event.event === 'service-updates' && event.data.lastChangeAt === 'throws')
        throw new Error('the agent could not handle it');
      received.push(event);
    });
    await arrived('after-fault');
    expect(faults.map((e) => e.message)).toEqual(['the agent could not handle it']);
    expect(connections).toBe(before + 2);
  });
});

describe('the event-stream parser', () => {
  const eventName = fc.constantFrom('service-updates', 'sessions-removed', 'x');
  const text = fc.string({ maxLength: 40 }).filter((s) => !/[\r\n]/.test(s));
  const ending = fc.constantFrom('\n', '\r\n', '\r');

  it('reads the same events however the stream is cut into chunks, whatever the line endings', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ event: eventName, data: fc.array(text, { minLength: 1, maxLength: 3 }) }), {
          maxLength: 6,
        }),
        ending,
        fc.array(fc.nat(), { maxLength: 10 }),
        (events, eol, cuts) => {
          const wire = events
            .map(
              (e) =>
                `: note${eol}event: ${e.event}${eol}${e.data.map((d) => `data: ${d}${eol}`).join('')}${eol}`,
            )
            .join('');
          const parser = new EventStreamParser();
          const got = [];
          let from = 0;
          for (const at of [...cuts.map((c) => c % (wire.length + 1)), wire.length].sort((a, b) => a - b)) {
            const out = parser.feed(wire.slice(from, at));
            expect(out).not.toBe('too-large');
            got.push(...(out as Exclude<typeof out, 'too-large'>));
            from = at;
          }
          expect(got).toEqual(events.map((e) => ({ event: e.event, data: e.data.join('\n') })));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('never throws and never holds more than its bound', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 2_000 }), { maxLength: 20 }), (chunks) => {
        const parser = new EventStreamParser();
        for (const chunk of chunks) if (parser.feed(chunk) === 'too-large') return;
      }),
      { numRuns: 1_000 },
    );
    const parser = new EventStreamParser();
    expect(parser.feed('data: ')).toEqual([]);
    expect(parser.feed('y'.repeat(MAX_EVENT_CHARS))).toBe('too-large');
  });
});
