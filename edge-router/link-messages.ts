/**
 * The router's reading of its link's frames. The controller is trusted, but a frame it did not mean (a bug,
 * a version skew, a truncated write) must cost that frame alone: anything malformed is dropped here, never
 * thrown into the link's socket handler (which would end the link or the router). What is dropped fails
 * closed: a session that does not parse is one the router does not carry.
 */
import type { ControllerToRouter, RouterServiceTarget, RouterSession } from '../src/api/data-plane.js';

const isText = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= 1024;
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const SHA256_HEX = /^[0-9a-f]{64}$/;

export function asRouterSession(value: unknown): RouterSession | undefined {
  if (!isObject(value)) return undefined;
  const { id, tokenHash, serviceId, identityId, apiSessionId, type } = value;
  if (!isText(id) || !isText(serviceId) || !isText(identityId) || !isText(apiSessionId)) return undefined;
  if (typeof tokenHash !== 'string' || !SHA256_HEX.test(tokenHash)) return undefined;
  if (type !== 'Dial' && type !== 'Bind') return undefined;
  return { id, tokenHash, serviceId, identityId, apiSessionId, type };
}

export function asServiceTarget(value: unknown): RouterServiceTarget | undefined {
  if (!isObject(value) || !isText(value.serviceId) || typeof value.name !== 'string') return undefined;
  const host = value.host;
  if (host === null) return { serviceId: value.serviceId, name: value.name, host: null };
  if (!isObject(host) || (host.protocol !== 'tcp' && host.protocol !== 'udp') || !isText(host.address))
    return undefined;
  if (typeof host.port !== 'number' || !Number.isInteger(host.port) || host.port < 0 || host.port > 65535)
    return undefined;
  return {
    serviceId: value.serviceId,
    name: value.name,
    host: { ...host, protocol: host.protocol, address: host.address, port: host.port },
  };
}

/** Keeps what parses of a list; `undefined` when it is not a list at all. */
function each<T>(value: unknown, as: (item: unknown) => T | undefined): T[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const kept: T[] = [];
  for (const item of value) {
    const parsed = as(item);
    if (parsed) kept.push(parsed);
  }
  return kept;
}

/** A frame from the controller as the router may act on it, or `undefined` to drop it. */
export function parseControllerMessage(text: string): ControllerToRouter | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(raw)) return undefined;
  switch (raw.t) {
    case 'snapshot': {
      const sessions = each(raw.sessions, asRouterSession);
      const services = each(raw.services, asServiceTarget);
      return sessions && services ? { t: 'snapshot', sessions, services } : undefined;
    }
    case 'session.added': {
      const session = asRouterSession(raw.session);
      return session ? { t: 'session.added', session } : undefined;
    }
    case 'session.removed': {
      // A revocation keeps every id that is one, whatever else came with it.
      const sessionIds = each(raw.sessionIds, (id) => (isText(id) ? id : undefined));
      return sessionIds ? { t: 'session.removed', sessionIds } : undefined;
    }
    case 'service': {
      const service = asServiceTarget(raw.service);
      return service ? { t: 'service', service } : undefined;
    }
    case 'lookup.result': {
      if (typeof raw.id !== 'number' || !Number.isSafeInteger(raw.id)) return undefined;
      const session = asRouterSession(raw.session) ?? null;
      return {
        t: 'lookup.result',
        id: raw.id,
        session,
        service: session ? (asServiceTarget(raw.service) ?? null) : null,
      };
    }
    default:
      return undefined;
  }
}
