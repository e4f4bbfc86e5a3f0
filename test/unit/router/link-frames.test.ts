/**
 * The link's frame readers on both sides, fuzzed (issue 22, item 4): random text, random JSON, valid frames
 * cut short and valid frames with a field of the wrong type never throw, and what comes out is either a frame
 * of the exact wire shape or nothing (the router) / an "ignored" or "unknown token" verdict (the controller).
 * The real link's behaviour with such frames is in test/integration/router-link-fuzz.test.ts.
 */
import { createHash, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  parseRouterFrame,
  MAX_ROUTER_MESSAGE_CHARS,
} from '../../../controller/edge-routers/link/link-messages.js';
import { parseControllerMessage } from '../../../edge-router/link-messages.js';
import type { ControllerToRouter, RouterSession } from '../../../src/api/data-plane.js';

const session = (): RouterSession => ({
  id: randomUUID(),
  tokenHash: createHash('sha256').update(randomUUID()).digest('hex'),
  serviceId: randomUUID(),
  identityId: randomUUID(),
  apiSessionId: randomUUID(),
  type: 'Dial',
});
const target = { serviceId: 'svc', name: 'web', host: { protocol: 'tcp', address: '10.0.0.5', port: 443 } };
const CONTROLLER_FRAMES: ControllerToRouter[] = [
  { t: 'snapshot', sessions: [session(), session()], services: [target as never] },
  { t: 'session.added', session: session() },
  { t: 'session.removed', sessionIds: [randomUUID(), randomUUID()] },
  { t: 'service', service: { serviceId: 'svc', name: 'web', host: null } },
  { t: 'lookup.result', id: 7, session: session(), service: target as never },
];
const ROUTER_FRAMES = [
  { t: 'hello', hostname: 'router.example', urls: { tls: 'tls://router.example:3022' }, version: '1.0.0' },
  { t: 'lookup', id: 3, token: randomUUID() },
];

/** A frame as text, cut anywhere before its end. */
const truncated = (frames: readonly object[]) =>
  fc
    .tuple(fc.constantFrom(...frames.map((f) => JSON.stringify(f))), fc.nat())
    .map(([text, n]) => text.slice(0, n % text.length));
/** A frame with one of its fields replaced by any JSON value. */
const mistyped = (frames: readonly object[]) =>
  fc.tuple(fc.constantFrom(...frames), fc.nat(), fc.jsonValue()).map(([frame, n, value]) => {
    const keys = Object.keys(frame).filter((k) => k !== 't');
    return JSON.stringify({ ...frame, [keys[n % keys.length]!]: value });
  });
const anyText = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.json());

describe('the router reading controller frames', () => {
  it('never throws on random, truncated or mistyped frames, and keeps only well-formed ones', () => {
    fc.assert(
      fc.property(fc.oneof(anyText, truncated(CONTROLLER_FRAMES), mistyped(CONTROLLER_FRAMES)), (text) => {
        const parsed = parseControllerMessage(text);
        if (!parsed) return;
        // Whatever came out is of the wire shape: re-reading its own text gives the same.
        expect(parseControllerMessage(JSON.stringify(parsed))).toEqual(parsed);
      }),
      { numRuns: 3000 },
    );
  });

  it('drops every strict prefix of a valid frame, reads every valid frame as sent', () => {
    for (const frame of CONTROLLER_FRAMES) {
      const text = JSON.stringify(frame);
      expect(parseControllerMessage(text)).toEqual(frame);
      for (let n = 0; n < text.length; n++) expect(parseControllerMessage(text.slice(0, n))).toBeUndefined();
    }
  });

  it('fails closed: a session that does not parse is not carried, a revocation keeps every id it has', () => {
    const good = session();
    const snapshot = parseControllerMessage(
      JSON.stringify({ t: 'snapshot', sessions: [good, { ...session(), tokenHash: 'x' }, 5], services: [] }),
    );
    expect(snapshot).toEqual({ t: 'snapshot', sessions: [good], services: [] });
    expect(
      parseControllerMessage(JSON.stringify({ t: 'session.removed', sessionIds: ['a', 7, null, 'b'] })),
    ).toEqual({ t: 'session.removed', sessionIds: ['a', 'b'] });
  });
});

describe('the controller reading router frames', () => {
  it('never throws, and a frame is a well-formed message, a lookup to answer "unknown", or ignored', () => {
    fc.assert(
      fc.property(fc.oneof(anyText, truncated(ROUTER_FRAMES), mistyped(ROUTER_FRAMES)), (text) => {
        const frame = parseRouterFrame(text);
        if (frame.kind === 'unknown-token') expect(Number.isSafeInteger(frame.id)).toBe(true);
        if (frame.kind !== 'message') return;
        const again = parseRouterFrame(JSON.stringify(frame.message));
        expect(again).toEqual(frame);
      }),
      { numRuns: 3000 },
    );
  });

  it('answers a lookup of 40,000 backslashes (or any non-token) "unknown", and ignores what is too large', () => {
    expect(parseRouterFrame(JSON.stringify({ t: 'lookup', id: 1, token: '\\'.repeat(40_000) }))).toEqual({
      kind: 'ignored',
      why: 'frame too large',
    });
    expect(parseRouterFrame(JSON.stringify({ t: 'lookup', id: 2, token: '\\'.repeat(100) }))).toEqual({
      kind: 'unknown-token',
      id: 2,
    });
    expect(parseRouterFrame(JSON.stringify({ t: 'lookup', id: 3, token: 'A'.repeat(36) })).kind).toBe(
      'unknown-token',
    );
    expect(parseRouterFrame('x'.repeat(MAX_ROUTER_MESSAGE_CHARS + 1)).kind).toBe('ignored');
    for (const frame of ROUTER_FRAMES)
      expect(parseRouterFrame(JSON.stringify(frame))).toEqual({ kind: 'message', message: frame });
  });
});

describe("the router reading a service's host.v1", () => {
  const service = (host: Record<string, unknown>) =>
    parseControllerMessage(
      JSON.stringify({ t: 'service', service: { serviceId: 'svc', name: 'web', host } }),
    );
  const forwarding = {
    forwardProtocol: true,
    allowedProtocols: ['tcp'],
    forwardAddress: true,
    allowedAddresses: ['10.0.0.0/8', '*.corp'],
    forwardPort: true,
    allowedPortRanges: [{ low: 80, high: 90 }],
    listenOptions: { connectTimeoutSeconds: 5 },
  };

  it('keeps a forwarding host.v1 (no fixed protocol, address or port) with its allowed lists', () => {
    expect(service(forwarding)).toEqual({
      t: 'service',
      service: { serviceId: 'svc', name: 'web', host: forwarding },
    });
  });

  it('keeps of an allowed list only what parses, and drops allowed lists of parts not forwarded', () => {
    const parsed = service({
      ...forwarding,
      allowedAddresses: ['10.0.0.0/8', 7, null],
      allowedPortRanges: [{ low: 80, high: 90 }, { low: 'x' }],
      allowedProtocols: 'tcp',
    });
    expect(parsed).toMatchObject({
      service: {
        host: {
          allowedAddresses: ['10.0.0.0/8'],
          allowedPortRanges: [{ low: 80, high: 90 }],
          allowedProtocols: [],
        },
      },
    });
    const fixed = service({
      protocol: 'tcp',
      address: '10.0.0.5',
      port: 443,
      allowedAddresses: ['0.0.0.0/0'],
    });
    expect(fixed).toEqual({
      t: 'service',
      service: { serviceId: 'svc', name: 'web', host: { protocol: 'tcp', address: '10.0.0.5', port: 443 } },
    });
  });

  it('drops a host.v1 missing a part it does not forward', () => {
    expect(service({ ...forwarding, forwardAddress: false })).toBeUndefined();
    expect(service({ protocol: 'tcp', address: '10.0.0.5' })).toBeUndefined();
    expect(service({ address: '10.0.0.5', port: 443, forwardProtocol: 'yes' })).toBeUndefined();
  });
});
