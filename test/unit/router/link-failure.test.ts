/** The router's link failures in words (cause and fix), and the back-off on saying the same one again. */
import { describe, expect, it } from 'vitest';
import { linkFailureText, RepeatLimiter } from '../../../edge-router/link-failure.js';

const URL = 'https://controller.example:1280';
const failure = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('linkFailureText', () => {
  it('names the cause and the fix', () => {
    expect(linkFailureText(failure('DEPTH_ZERO_SELF_SIGNED_CERT'), URL)).toMatch(
      /self-signed: pass --controller-ca <file> \(its certificate\) or --controller-fingerprint/,
    );
    expect(linkFailureText(failure('SELF_SIGNED_CERT_IN_CHAIN'), URL)).toMatch(
      /CA this router does not trust.*--controller-ca <file>/,
    );
    expect(linkFailureText(failure('ECONNREFUSED'), URL)).toBe(
      `connection refused: is the controller running at ${URL}?`,
    );
    expect(
      linkFailureText(failure('ERR_TLS_CERT_ALTNAME_INVALID', 'IP: 127.0.0.1 is not in the cert'), URL),
    ).toMatch(/does not name controller\.example .*--controller/);
  });
});

describe('RepeatLimiter', () => {
  it('says a message first, then the same one no more often than 1, 2, 4, … s, and a new one at once', () => {
    let now = 0;
    const limiter = new RepeatLimiter(() => now);
    const saidAt: number[] = [];
    for (now = 0; now <= 20_000; now += 100) if (limiter.shouldSay('same').say) saidAt.push(now);
    expect(saidAt).toEqual([0, 1_000, 3_000, 7_000, 15_000]);
    expect(limiter.shouldSay('other').say).toBe(true);
    limiter.reset();
    expect(limiter.shouldSay('other').say).toBe(true);
  });

  it('never waits more than 60 s between two sayings of the same message', () => {
    let now = 0;
    const limiter = new RepeatLimiter(() => now);
    let last = 0;
    for (now = 0; now <= 600_000; now += 500)
      if (limiter.shouldSay('same').say) {
        expect(now - last).toBeLessThanOrEqual(60_000);
        last = now;
      }
    expect(600_000 - last).toBeLessThanOrEqual(60_000);
  });
});
