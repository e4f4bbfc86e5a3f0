/**
 * The words a refused HTTP client gets: which first bytes count as an HTTP/1.x request, and a page that
 * escapes every value it shows (a service name or an administrator's advice is text, never markup).
 */
import { describe, expect, it } from 'vitest';
import {
  looksLikeHttpRequest,
  MAX_FIRST_LINE_BYTES,
  refusalResponse,
} from '../../../src/agent/tunnel/refusal-page.js';

const head = (text: string) => looksLikeHttpRequest(Buffer.from(text, 'latin1'));

describe('refusal page', () => {
  it('takes an HTTP/1.x request line for HTTP, and nothing else', () => {
    expect(head('GET / HTTP/1.1\r\nHost: x\r\n\r\n')).toBe(true);
    expect(head('OPTIONS * HTTP/1.0\n')).toBe(true);
    expect(head('GET / HTTP/1.1')).toBeUndefined();
    expect(head('')).toBeUndefined();
    expect(head('SSH-2.0-OpenSSH_9.6\r\n')).toBe(false);
    expect(head('GET / HTTP/2.0\r\n')).toBe(false);
    expect(head('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n')).toBe(false);
    expect(head('\x16\x03\x01\x02\x00')).toBe(false);
    expect(head(`GET /${'a'.repeat(MAX_FIRST_LINE_BYTES)}`)).toBe(false);
  });

  it('answers 403 with a correct length and every value escaped', () => {
    const response = refusalResponse('<svc>', [
      {
        check: 'network adapter check',
        fix: 'Connect from "an" allowed adapter & retry',
        remediation: "<script>x</script>'",
      },
      { fix: 'too many connections' },
    ]);
    const text = response.toString('utf8');
    const [headers, body] = text.split('\r\n\r\n') as [string, string];
    expect(headers.split('\r\n')).toEqual([
      'HTTP/1.1 403 Forbidden',
      'Content-Type: text/html; charset=utf-8',
      'Cache-Control: no-store',
      'Connection: close',
      `Content-Length: ${Buffer.byteLength(body)}`,
    ]);
    expect(body).toContain('Access to &lt;svc&gt; was refused');
    expect(body).toContain(
      '<strong>network adapter check</strong>: Connect from &quot;an&quot; allowed adapter &amp; retry',
    );
    expect(body).toContain('Your administrator says: &lt;script&gt;x&lt;/script&gt;&#39;');
    expect(body).toContain('<li>too many connections</li>');
    expect(body).not.toMatch(/<script|src=|href=/);
  });
});
