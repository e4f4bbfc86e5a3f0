/**
 * A refused connection answers in the application's language where it can: a client that opened with an
 * HTTP/1.x request line gets `403 Forbidden` and a small page naming the service, each failing check and its
 * fix (the same words as the CLI and the tray), instead of an empty reply it could only call a network error.
 * Anything else is closed without a byte, as before: a TLS ClientHello (0x16) gets no plaintext, and a
 * protocol whose server speaks first (SSH, SMTP) is closed once the short wait for a first line ends.
 */
import type { Socket } from 'node:net';
import { referenceLabel } from '../../api/refusal-reference.js';

/** One reason a connection was refused: the check (when a posture check is the cause), the fix, the admin's advice. */
export interface RefusalReason {
  /** `network adapter check`; absent for a refusal that is not a posture check's (a router limit) */
  check?: string;
  fix: string;
  /** the administrator's own advice for the check, shown as written */
  remediation?: string;
}

/**
 * How long a refused connection waits for the client's first line before closing. Bounded so a client that
 * waits for the server to speak first is not held open; HTTP clients send their request at once.
 */
export const FIRST_LINE_WAIT_MS = 2000;
/** A first line longer than this is not taken for an HTTP request (browsers keep request lines well below). */
export const MAX_FIRST_LINE_BYTES = 8192;
/** How long a refused connection stays open after the page, to read what the client still sends (no RST). */
const LINGER_MS = 5000;

const TLS_HANDSHAKE = 0x16;
/** method token SP request-target SP HTTP/1.x (RFC 9112 §3) */
const REQUEST_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ [^\s]+ HTTP\/1\.\d\r?$/;

/** `true`/`false` once the first bytes decide whether the client speaks HTTP/1.x; undefined: more needed. */
export function looksLikeHttpRequest(head: Buffer): boolean | undefined {
  if (head.length === 0) return undefined;
  if (head[0] === TLS_HANDSHAKE) return false;
  const end = head.indexOf(0x0a);
  if (end === -1) return head.length > MAX_FIRST_LINE_BYTES ? false : undefined;
  return end <= MAX_FIRST_LINE_BYTES && REQUEST_LINE.test(head.subarray(0, end).toString('latin1'));
}

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/**
 * The whole response: status line, headers and a self-contained page (no scripts, styles or links out);
 * `reference`: the controller's for the refusal, to quote to an administrator.
 */
export function refusalResponse(
  service: string,
  reasons: readonly RefusalReason[],
  reference?: string,
): Buffer {
  const items = reasons.map((r) => {
    const check = r.check ? `<strong>${escapeHtml(r.check)}</strong>: ` : '';
    const advice = r.remediation ? `<br>Your administrator says: ${escapeHtml(r.remediation)}` : '';
    return `<li>${check}${escapeHtml(r.fix)}${advice}</li>`;
  });
  const name = escapeHtml(service);
  const body = Buffer.from(
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
      `<title>Postern: access to ${name} refused</title></head>\n<body>` +
      `<h1>Access to ${name} was refused</h1>\n` +
      '<p>Postern on this device did not open the connection. What stands in the way, and how to fix it:</p>\n' +
      `<ul>${items.join('\n')}</ul>\n` +
      (reference
        ? `<p>Asking your administrator? Quote <strong>${escapeHtml(referenceLabel(reference))}</strong>.</p>\n`
        : '') +
      '<p>Once it is fixed, reload this page.</p></body></html>\n',
  );
  const head =
    'HTTP/1.1 403 Forbidden\r\nContent-Type: text/html; charset=utf-8\r\nCache-Control: no-store\r\n' +
    `Connection: close\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

/**
 * Answers a refused local connection: the 403 page to an HTTP/1.x client, nothing to anyone else. Reads at
 * most a first line and waits at most FIRST_LINE_WAIT_MS for it.
 */
export function answerRefusal(
  socket: Socket,
  service: string,
  reasons: readonly RefusalReason[],
  reference?: string,
): void {
  if (socket.destroyed) return;
  let head = Buffer.alloc(0);
  let decided = false;
  const decide = (http: boolean) => {
    decided = true;
    clearTimeout(wait);
    if (!http) return void socket.destroy();
    socket.end(refusalResponse(service, reasons, reference));
    // Keep reading (and dropping) until the client closes, so the rest of its request does not turn into an RST
    // that could discard the page before the client reads it.
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
  const wait = setTimeout(() => decide(false), FIRST_LINE_WAIT_MS);
  wait.unref();
  socket.on('data', (chunk: Buffer) => {
    if (decided) return;
    head = Buffer.concat([head, chunk]);
    const http = looksLikeHttpRequest(head);
    if (http !== undefined) decide(http);
  });
  socket.once('close', () => clearTimeout(wait));
  socket.resume();
}
