/**
 * The `text/event-stream` format (server-sent events, WHATWG HTML §9.2) read incrementally from text chunks
 * split anywhere: lines end with CRLF, LF or CR; `event:` names a message, `data:` lines (joined with
 * newlines) carry it, a blank line ends it, `:` starts a comment (the controller's heartbeat). The bytes come
 * from the network, so the parser never throws on them and holds at most MAX_EVENT_CHARS of one message.
 */

/**
 * The most one message (its data and its unfinished line) may hold. The controller's events are a few
 * hundred characters; a stream that goes on this long without ending a message is not one to keep reading.
 */
export const MAX_EVENT_CHARS = 1 << 20;

export interface StreamEvent {
  /** `message` when the stream named none, as the format says */
  event: string;
  data: string;
}

export class EventStreamParser {
  private line = '';
  private event = '';
  private data: string[] = [];
  private held = 0;
  /** the last chunk ended with CR: a LF opening the next one is the rest of that line ending */
  private afterCR = false;

  /** The messages `chunk` completes, or 'too-large' once a message passes MAX_EVENT_CHARS. */
  feed(chunk: string): StreamEvent[] | 'too-large' {
    if (chunk === '') return [];
    let text = chunk;
    if (this.afterCR && text.startsWith('\n')) text = text.slice(1);
    this.afterCR = false;
    const events: StreamEvent[] = [];
    let from = 0;
    for (const end of text.matchAll(/\r\n|\r|\n/g)) {
      const event = this.takeLine(this.line + text.slice(from, end.index));
      this.line = '';
      if (event) events.push(event);
      from = end.index + end[0].length;
      if (from === text.length && end[0] === '\r') this.afterCR = true;
    }
    this.line += text.slice(from);
    if (this.held + this.line.length > MAX_EVENT_CHARS) return 'too-large';
    return events;
  }

  private takeLine(line: string): StreamEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    if (field === 'event' || field === 'data') this.held += value.length + 1;
    // `id` and `retry` are not used: the agent reconnects on its own schedule and re-reads its services.
    return undefined;
  }

  private dispatch(): StreamEvent | undefined {
    const event = this.data.length
      ? { event: this.event || 'message', data: this.data.join('\n') }
      : undefined;
    this.event = '';
    this.data = [];
    this.held = 0;
    return event;
  }
}
