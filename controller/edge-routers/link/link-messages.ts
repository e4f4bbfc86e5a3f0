/**
 * The controller's reading of a router's link frames. A router relays what agents sent it (a lookup's token
 * came from an unauthenticated CONNECT), so nothing in a frame is trusted: a frame that does not parse is
 * ignored, a lookup whose token is not a token's shape is answered "unknown" without touching the store, and
 * neither ever ends the link (ending it would stall every tunnel's revocations until the router relinks).
 */
import { isSessionTokenFormat, type RouterToController } from '../../../src/api/data-plane.js';

/** A router's own frames are a hello and lookups, well under this; larger ones are ignored unread. */
export const MAX_ROUTER_MESSAGE_CHARS = 64 * 1024;
const MAX_HELLO_URLS = 8;
const MAX_FIELD_CHARS = 2048;

export type RouterFrame =
  | { kind: 'message'; message: RouterToController }
  /** a lookup to answer at once with "unknown" */
  | { kind: 'unknown-token'; id: number }
  | { kind: 'ignored'; why: string };

const isField = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= MAX_FIELD_CHARS;
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function parseRouterFrame(text: string): RouterFrame {
  if (text.length > MAX_ROUTER_MESSAGE_CHARS) return { kind: 'ignored', why: 'frame too large' };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { kind: 'ignored', why: 'not JSON' };
  }
  if (!isObject(raw)) return { kind: 'ignored', why: 'not an object' };
  if (raw.t === 'lookup') {
    const { id, token } = raw;
    if (typeof id !== 'number' || !Number.isSafeInteger(id)) return { kind: 'ignored', why: 'lookup id' };
    if (!isSessionTokenFormat(token)) return { kind: 'unknown-token', id };
    return { kind: 'message', message: { t: 'lookup', id, token } };
  }
  if (raw.t === 'hello') {
    const { hostname, urls, version } = raw;
    if (!isField(hostname) || !hostname || !isField(version)) return { kind: 'ignored', why: 'hello fields' };
    if (!isObject(urls)) return { kind: 'ignored', why: 'hello urls' };
    const entries = Object.entries(urls);
    if (entries.length > MAX_HELLO_URLS || !entries.every(([k, v]) => isField(k) && isField(v)))
      return { kind: 'ignored', why: 'hello urls' };
    return {
      kind: 'message',
      message: { t: 'hello', hostname, urls: Object.fromEntries(entries) as Record<string, string>, version },
    };
  }
  return { kind: 'ignored', why: 'unknown message type' };
}
