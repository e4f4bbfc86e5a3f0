/**
 * The names the intercept resolver answers for: exact names (`wiki.corp`) and wildcards (`*.corp`) from the
 * `addresses` of the granted services' `intercept.v1` configs, each with the service it belongs to. IPs and
 * CIDRs are not names (they are routed, not resolved) and are left out here.
 *
 * Matching follows OpenZiti's tunneler: an exact name beats any wildcard; `*.corp` matches `a.corp` and
 * `a.b.corp` but never `corp` itself; of several wildcards the longest (most specific) wins, so with `*.corp`
 * and `*.apps.corp`, `x.apps.corp` belongs to the latter. Two services claiming the same pattern: the first
 * given keeps it (callers pass services in a stable order).
 */
import { isIP } from 'node:net';
import type { InterceptV1 } from '../../../api/data-plane.js';
import { isHostName, normalizeName } from './dns-name.js';

export interface NamePattern {
  /** `wiki.corp` or `*.corp` */
  pattern: string;
  service: string;
}

/** The name patterns among services' intercept.v1 addresses; configs that carry no TCP are not intercepted. */
export function namePatterns(
  services: readonly { service: string; intercept: InterceptV1 }[],
): NamePattern[] {
  return services.flatMap(({ service, intercept }) =>
    intercept.protocols?.includes('tcp')
      ? intercept.addresses
          .filter((address) => !address.includes('/') && !isIP(address.replace(/^\[|\]$/g, '')))
          .map((pattern) => ({ pattern, service }))
      : [],
  );
}

export class InterceptNames {
  private readonly exact = new Map<string, string>();
  /** keyed by the domain under the wildcard: `*.corp` is stored as `corp` */
  private readonly wildcards = new Map<string, string>();
  /** patterns that are not host names or `*.` plus a host name, left out */
  readonly rejected: string[] = [];

  constructor(patterns: Iterable<NamePattern> = []) {
    for (const { pattern, service } of patterns) {
      const name = normalizeName(pattern.trim());
      const wildcard = name.startsWith('*.');
      const key = wildcard ? name.slice(2) : name;
      if (!isHostName(key)) {
        this.rejected.push(pattern);
        continue;
      }
      const map = wildcard ? this.wildcards : this.exact;
      if (!map.has(key)) map.set(key, service);
    }
  }

  /** The service an intercepted name belongs to, or undefined when the name is not intercepted. */
  match(name: string): string | undefined {
    const key = normalizeName(name);
    const exact = this.exact.get(key);
    if (exact !== undefined) return exact;
    // Walk the parent domains from the longest down: the first wildcard found is the most specific.
    for (let dot = key.indexOf('.'); dot !== -1; dot = key.indexOf('.', dot + 1)) {
      const service = this.wildcards.get(key.slice(dot + 1));
      if (service !== undefined) return service;
    }
    return undefined;
  }

  /**
   * systemd-resolved routing domains (`resolvectl domain postern0 …`): `~wiki.corp` for an exact name,
   * `~corp` for `*.corp`. They send queries for `corp` itself too; the resolver forwards what it does not
   * intercept, so routing a little more than needed changes no answer.
   */
  domains(): string[] {
    return [...new Set([...this.exact.keys(), ...this.wildcards.keys()])].sort().map((d) => `~${d}`);
  }

  patterns(): NamePattern[] {
    return [
      ...[...this.exact].map(([name, service]) => ({ pattern: name, service })),
      ...[...this.wildcards].map(([domain, service]) => ({ pattern: `*.${domain}`, service })),
    ];
  }

  get size(): number {
    return this.exact.size + this.wildcards.size;
  }
}
