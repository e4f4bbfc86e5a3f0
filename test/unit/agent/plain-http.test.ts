/** Which controller addresses the agent talks plain HTTP to: loopback only, unless told `--insecure`. */
import { describe, expect, it } from 'vitest';
import { ControllerClient } from '../../../src/controller-client/controller-client.js';
import {
  PlainHttpRefused,
  assertTransportAllowed,
  isLoopbackHost,
} from '../../../src/controller-client/plain-http.js';

describe('plain http guard', () => {
  it.each(['127.0.0.1', '127.9.8.7', 'localhost', 'LOCALHOST', '[::1]', '::1'])('%s is loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each(['0.0.0.0', '10.0.0.1', 'controller.example.com', '127.example.com', '[::ffff:10.0.0.1]'])(
    '%s is not',
    (host) => expect(isLoopbackHost(host)).toBe(false),
  );

  it('refuses http:// off loopback, allows https:// anywhere, and http:// when told to', () => {
    expect(() => assertTransportAllowed('http://controller.example.com:1280')).toThrow(PlainHttpRefused);
    expect(() => new ControllerClient({ baseUrl: 'http://10.0.0.5:1280' })).toThrow(
      'refusing plain http:// to 10.0.0.5:1280',
    );
    expect(() => assertTransportAllowed('https://controller.example.com:1280')).not.toThrow();
    expect(() => assertTransportAllowed('http://127.0.0.1:1280')).not.toThrow();
    expect(
      () => new ControllerClient({ baseUrl: 'http://10.0.0.5:1280', allowPlainHttp: true }),
    ).not.toThrow();
  });
});
