/**
 * Where a stream goes, decided from the service's `host.v1` alone: its fixed protocol, address and port,
 * except a part whose `forward…` flag is set, which is then what the client asked for (the `postern-dial-…`
 * headers) and only when it lies within that part's allowed list. A part not forwarded ignores what was asked,
 * so a service without forwarding always goes to its one target: the router is never an open proxy.
 */
import type { IncomingHttpHeaders } from 'node:http2';
import {
  STREAM_DIAL_ADDRESS_HEADER,
  STREAM_DIAL_PORT_HEADER,
  STREAM_DIAL_PROTOCOL_HEADER,
  type HostV1,
} from '../src/api/data-plane.js';
import { addressMatches, canonicalAddress, isDialAddress } from '../src/common/address-pattern.js';

/** What the client asked, as it came: each part absent or text, nothing trusted yet. */
export interface AskedDestination {
  address?: string;
  port?: string;
  protocol?: string;
}

export type DialDecision =
  | { kind: 'dial'; address: string; port: number }
  /** the service's fixed protocol is not tcp (the data plane carries TCP streams only) */
  | { kind: 'no-tcp-host' }
  /** a forwarded part was not asked, was malformed or lies outside its allowed list */
  | { kind: 'not-allowed'; reason: string };

/** Longer than any host name (253) or IPv6 address: more is not an address, and is not kept for the log. */
const MAX_ASKED_CHARS = 255;

export function askedDestination(headers: IncomingHttpHeaders): AskedDestination {
  const read = (name: string) => {
    const value = headers[name];
    if (value === undefined) return undefined;
    // A repeated header arrives as a list or joined: neither is one destination.
    return typeof value === 'string' ? value.slice(0, MAX_ASKED_CHARS + 1) : '';
  };
  return {
    address: read(STREAM_DIAL_ADDRESS_HEADER),
    port: read(STREAM_DIAL_PORT_HEADER),
    protocol: read(STREAM_DIAL_PROTOCOL_HEADER),
  };
}

const notAllowed = (reason: string): DialDecision => ({ kind: 'not-allowed', reason });
const PORT_TEXT = /^[1-9]\d{0,4}$/;

export function decideDialTarget(host: HostV1, asked: AskedDestination): DialDecision {
  let protocol = host.protocol;
  if (host.forwardProtocol) {
    if (asked.protocol === undefined) return notAllowed('no protocol was asked (the service forwards it)');
    if (asked.protocol !== 'tcp' && asked.protocol !== 'udp') return notAllowed('malformed protocol');
    if (!host.allowedProtocols?.includes(asked.protocol))
      return notAllowed(`protocol ${asked.protocol} is not in allowedProtocols`);
    if (asked.protocol !== 'tcp') return notAllowed('only tcp is carried');
    protocol = asked.protocol;
  }
  if (protocol !== 'tcp') return { kind: 'no-tcp-host' };

  let address = host.address;
  if (host.forwardAddress) {
    if (asked.address === undefined) return notAllowed('no address was asked (the service forwards it)');
    if (asked.address.length > MAX_ASKED_CHARS || !isDialAddress(asked.address))
      return notAllowed('the asked address is not an IP address or a host name');
    // Judged and dialed in one spelling, so a mapped IPv6 address is checked as the IPv4 address it reaches.
    const wanted = canonicalAddress(asked.address);
    // Connecting to the unspecified address reaches the router's own host, whatever range it was allowed in.
    if (wanted === '0.0.0.0' || wanted === '::')
      return notAllowed('the unspecified address (this host) is not a destination');
    if (!host.allowedAddresses?.some((pattern) => addressMatches(pattern, wanted)))
      return notAllowed(`${wanted} is not in allowedAddresses`);
    address = wanted;
  }

  let port = host.port;
  if (host.forwardPort) {
    if (asked.port === undefined) return notAllowed('no port was asked (the service forwards it)');
    const wanted = PORT_TEXT.test(asked.port) ? Number(asked.port) : NaN;
    if (!(wanted <= 65535)) return notAllowed('the asked port is not a port number');
    if (!host.allowedPortRanges?.some((r) => wanted >= r.low && wanted <= r.high))
      return notAllowed(`port ${wanted} is not in allowedPortRanges`);
    port = wanted;
  }
  if (address === undefined || port === undefined) return { kind: 'no-tcp-host' };
  return { kind: 'dial', address, port };
}

/** The asked destination for a log line: `address:port/protocol`, each part as sent (bounded), `-` if absent. */
export function describeAsked(asked: AskedDestination): string {
  const part = (value: string | undefined) => (value === undefined ? '-' : value.slice(0, 64));
  const address = asked.address?.includes(':') ? `[${part(asked.address)}]` : part(asked.address);
  return `${address}:${part(asked.port)}/${part(asked.protocol)}`;
}
