/**
 * The router's reading of its link's frames. The controller is trusted, but a frame it did not mean (a bug,
 * a version skew, a truncated write) must cost that frame alone: anything malformed is dropped here, never
 * thrown into the link's socket handler (which would end the link or the router). What is dropped fails
 * closed: a session that does not parse is one the router does not carry.
 */
import type {
  ControllerToRouter,
  HostV1,
  PortRange,
  RouterServiceTarget,
  RouterSession,
  TransportProtocol,
} from '../src/api/data-plane.js';

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
  if (value.host === null) return { serviceId: value.serviceId, name: value.name, host: null };
  const host = asHostV1(value.host);
  return host && { serviceId: value.serviceId, name: value.name, host };
}

const isProtocol = (value: unknown): value is TransportProtocol => value === 'tcp' || value === 'udp';
const isPort = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 65535;
const isRange = (value: unknown): value is PortRange =>
  isObject(value) && isPort(value.low) && isPort(value.high);

const FORWARD_KEYS = [
  'forwardProtocol',
  'allowedProtocols',
  'forwardAddress',
  'allowedAddresses',
  'forwardPort',
  'allowedPortRanges',
] as const;

/**
 * A `host.v1` as the router may dial it: each of protocol, address and port fixed, or forwarded with its
 * allowed list (kept only as far as it parses: what is dropped is never allowed). Anything else: undefined.
 */
function asHostV1(host: unknown): HostV1 | undefined {
  if (!isObject(host)) return undefined;
  const { protocol, address, port } = host;
  const forwardProtocol = host.forwardProtocol === true;
  const forwardAddress = host.forwardAddress === true;
  const forwardPort = host.forwardPort === true;
  if (!(isProtocol(protocol) || (protocol === undefined && forwardProtocol))) return undefined;
  if (!(isText(address) || (address === undefined && forwardAddress))) return undefined;
  if (!(isPort(port) || (port === undefined && forwardPort))) return undefined;
  const parsed: HostV1 = { ...host, protocol, address, port };
  for (const key of FORWARD_KEYS) delete parsed[key];
  if (forwardProtocol) {
    parsed.forwardProtocol = true;
    parsed.allowedProtocols = each(host.allowedProtocols, (p) => (isProtocol(p) ? p : undefined)) ?? [];
  }
  if (forwardAddress) {
    parsed.forwardAddress = true;
    parsed.allowedAddresses = each(host.allowedAddresses, (a) => (isText(a) ? a : undefined)) ?? [];
  }
  if (forwardPort) {
    parsed.forwardPort = true;
    parsed.allowedPortRanges = each(host.allowedPortRanges, (r) => (isRange(r) ? r : undefined)) ?? [];
  }
  return parsed;
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
