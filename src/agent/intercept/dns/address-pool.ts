/**
 * The addresses the intercept resolver hands out: one IPv4 address per intercepted name, from a CIDR that
 * routes to the agent (100.64.0.0/10, the shared address space no site uses for its own hosts by default).
 * The network address, the first `reserved` addresses after it (by default .1 for the link and .2 for the
 * resolver itself) and the broadcast address are never handed out.
 *
 * A name keeps its address for the pool's life (until released), and a live address is never given to a
 * second name: the data path turns an original destination back into a name with `nameOf`, so a shared
 * address would send one service's connections to another. Fresh addresses are used first, and released ones
 * only once the fresh ones run out, oldest first, so an answer a client still caches keeps pointing at
 * nothing rather than at another name for as long as possible.
 */
import { isIP } from 'node:net';
import { normalizeName } from './dns-name.js';

export const DEFAULT_POOL_CIDR = '100.64.0.0/10';
/** .1 is the link (postern0) and .2 the resolver's own address. */
export const DEFAULT_RESERVED = 2;
/**
 * Names holding an address at once. Any local program can look up endless names under an intercepted
 * `*.domain`; without a bound each would keep an address (and memory in a root process) for the agent's life.
 */
export const MAX_LIVE_NAMES = 65_536;
/**
 * A name not answered for this long may give its address to a new one once the live names are at their bound:
 * four times the answers' 30 s TTL, so no client still holds the old answer in its cache.
 */
export const IDLE_BEFORE_REUSE_MS = 120_000;

export interface PoolEntry {
  name: string;
  address: string;
}

export class AddressPoolExhaustedError extends Error {
  constructor(cidr: string, capacity: number, why?: string) {
    super(why ?? `address pool ${cidr} is exhausted: all ${capacity} addresses are allocated to names`);
    this.name = 'AddressPoolExhaustedError';
  }
}

function toNumber(address: string): number | undefined {
  const bare = address.replace(/^::ffff:/i, '');
  if (isIP(bare) !== 4) return undefined;
  return bare.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function toAddress(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export class AddressPool {
  readonly cidr: string;
  /** how many addresses can be allocated at once */
  readonly capacity: number;
  private readonly first: number;
  private readonly last: number;
  private next: number;
  private readonly released: number[] = [];
  private readonly byName = new Map<string, number>();
  private readonly byAddress = new Map<number, string>();
  /** name → when it was last answered, least recent first (an entry moves to the end when answered) */
  private readonly answeredAt = new Map<string, number>();
  private readonly maxLive: number;
  private readonly idleMs: number;
  private readonly now: () => number;

  constructor(
    options: { cidr?: string; reserved?: number; maxLive?: number; idleMs?: number; now?: () => number } = {},
  ) {
    this.maxLive = options.maxLive ?? MAX_LIVE_NAMES;
    this.idleMs = options.idleMs ?? IDLE_BEFORE_REUSE_MS;
    this.now = options.now ?? (() => performance.now());
    const cidr = options.cidr ?? DEFAULT_POOL_CIDR;
    const reserved = options.reserved ?? DEFAULT_RESERVED;
    const [base = '', bitsText = ''] = cidr.split('/');
    const network = toNumber(base);
    const bits = /^\d{1,2}$/.test(bitsText) ? Number(bitsText) : Number.NaN;
    if (network === undefined || !(bits >= 0 && bits <= 32) || base.includes(':'))
      throw new Error(`address pool: ${cidr} is not an IPv4 CIDR`);
    const size = 2 ** (32 - bits);
    if (network % size !== 0) throw new Error(`address pool: ${cidr} is not a network address`);
    if (!Number.isInteger(reserved) || reserved < 0)
      throw new Error(`address pool: reserved must be a whole number, not ${reserved}`);
    this.cidr = cidr;
    this.first = network + 1 + reserved;
    this.last = network + size - 2;
    if (this.first > this.last)
      throw new Error(`address pool: ${cidr} has no address left after the ${reserved} reserved`);
    this.capacity = this.last - this.first + 1;
    this.next = this.first;
  }

  /**
   * The name's address, allocated on first use; each call counts as an answer. Throws
   * AddressPoolExhaustedError when none is free: every address taken, or the live names at their bound and
   * none idle long enough to give its address up.
   */
  allocate(name: string): string {
    const key = normalizeName(name);
    const known = this.byName.get(key);
    if (known !== undefined) {
      this.answered(key);
      return toAddress(known);
    }
    if (this.byName.size >= this.maxLive) this.reuseIdle();
    let n: number | undefined;
    // skip the addresses `restore` handed out
    while (this.next <= this.last && this.byAddress.has(this.next)) this.next++;
    if (this.next <= this.last) n = this.next++;
    else n = this.released.shift();
    if (n === undefined) throw new AddressPoolExhaustedError(this.cidr, this.capacity);
    this.byName.set(key, n);
    this.byAddress.set(n, key);
    this.answered(key);
    return toAddress(n);
  }

  private answered(key: string): void {
    this.answeredAt.delete(key);
    this.answeredAt.set(key, this.now());
  }

  /** Frees the least recently answered name's address, if it has been idle long enough; else throws. */
  private reuseIdle(): void {
    const [oldest, at] = this.answeredAt.entries().next().value ?? [];
    if (oldest === undefined || at === undefined || this.now() - at < this.idleMs)
      throw new AddressPoolExhaustedError(
        this.cidr,
        this.capacity,
        `address pool ${this.cidr}: ${this.maxLive} names were answered in the last ` +
          `${Math.round(this.idleMs / 1000)} s; no address is free for another`,
      );
    this.release(oldest);
  }

  /**
   * Gives names the addresses they held before, typically in the agent's previous run (kept in its state
   * folder), so that an answer a client cached just before a restart still means the same name after it.
   * Entries outside the allocatable range, or whose name or address is already held, are skipped and returned.
   */
  restore(entries: readonly PoolEntry[]): PoolEntry[] {
    const skipped: PoolEntry[] = [];
    for (const entry of entries) {
      const n = toNumber(entry.address);
      const key = normalizeName(entry.name);
      if (
        n === undefined ||
        n < this.first ||
        n > this.last ||
        this.byName.has(key) ||
        this.byAddress.has(n)
      ) {
        skipped.push(entry);
        continue;
      }
      const released = this.released.indexOf(n);
      if (released !== -1) this.released.splice(released, 1);
      this.byName.set(key, n);
      this.byAddress.set(n, key);
      this.answered(key);
    }
    return skipped;
  }

  /** Every name with its address, for `restore` in a later run. */
  entries(): PoolEntry[] {
    return [...this.byName].map(([name, n]) => ({ name, address: toAddress(n) }));
  }

  addressOf(name: string): string | undefined {
    const n = this.byName.get(normalizeName(name));
    return n === undefined ? undefined : toAddress(n);
  }

  /** The name an address was allocated to (IPv4, or IPv4-mapped IPv6 as a dual-stack socket reports it). */
  nameOf(address: string): string | undefined {
    const n = toNumber(address);
    return n === undefined ? undefined : this.byAddress.get(n);
  }

  /** Frees the name's address (reused only after every fresh one). True if the name had one. */
  release(name: string): boolean {
    const key = normalizeName(name);
    const n = this.byName.get(key);
    if (n === undefined) return false;
    this.byName.delete(key);
    this.byAddress.delete(n);
    this.answeredAt.delete(key);
    this.released.push(n);
    return true;
  }

  /** The names that hold an address now. */
  names(): string[] {
    return [...this.byName.keys()];
  }

  get size(): number {
    return this.byName.size;
  }
}
