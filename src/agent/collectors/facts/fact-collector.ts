/**
 * Runs the registry's collector of a fact for this system and keeps its answer for the type's TTL, so a warm
 * report cycle costs nothing for facts that change rarely. A collector that fails, or a system without one,
 * gives the unknown answer with the reason: a fact that cannot be read is never reported as passing.
 */
import type { FactPostureResponse } from '../../../api/posture-responses.js';
import { AGENT_PLATFORMS, type AgentPlatform } from '../../../api/posture-types/index.js';
import { errorMessage } from '../../../common/logger.js';
import { factEnvironment, type FactEnvironment } from './fact-environment.js';
import { FACT_COLLECTORS, type FactOf, type FactTypeId } from './fact-registry.js';

/** A failure is read again sooner than a fact: it may be a passing hiccup (a timeout under load). */
const UNKNOWN_TTL_MS = 15_000;
const MAX_REASON = 500;

export interface FactCollectorOptions {
  platform?: NodeJS.Platform;
  environment?: Partial<FactEnvironment>;
  now?: () => number;
  /** the registry to run; tests give one with slow or failing collectors */
  registry?: typeof FACT_COLLECTORS;
}

interface Cached {
  at: number;
  ttlMs: number;
  fact: Promise<object>;
}

export class FactCollector {
  private readonly platform: NodeJS.Platform;
  private readonly env: FactEnvironment;
  private readonly now: () => number;
  private readonly registry: typeof FACT_COLLECTORS;
  private readonly cache = new Map<FactTypeId, Cached>();

  constructor(options: FactCollectorOptions = {}) {
    this.platform = options.platform ?? process.platform;
    this.env = factEnvironment(options.environment);
    this.now = options.now ?? Date.now;
    this.registry = options.registry ?? FACT_COLLECTORS;
  }

  /** The answer to the check `id` of type `typeId`. Never rejects. */
  async collect<T extends FactTypeId>(typeId: T, id: string): Promise<FactPostureResponse> {
    const fact = await this.read(typeId);
    return { id, typeId, ...fact } as unknown as FactPostureResponse;
  }

  /** Forget every answer (after a wake: the machine may have changed while asleep). */
  invalidate(): void {
    this.cache.clear();
  }

  private read<T extends FactTypeId>(typeId: T): Promise<FactOf<T>> {
    const cached = this.cache.get(typeId);
    if (cached && this.now() - cached.at < cached.ttlMs) return cached.fact as Promise<FactOf<T>>;
    const entry = this.registry[typeId];
    const slot: Cached = { at: this.now(), ttlMs: entry.ttlMs, fact: Promise.resolve({}) };
    const collector = isAgentPlatform(this.platform) ? entry.collectors[this.platform] : undefined;
    const read = collector
      ? collector(this.env).catch((error: unknown) => entry.unknown(errorMessage(error)))
      : Promise.resolve(entry.unknown(`Postern does not read this on ${this.platform}`));
    const fact = read.then((value) => {
      if (value.unknownReason === undefined) return value;
      slot.ttlMs = Math.min(entry.ttlMs, UNKNOWN_TTL_MS);
      // The wire caps the reason (the descriptor's schema): a long tool error is cut, not refused.
      return { ...value, unknownReason: value.unknownReason.slice(0, MAX_REASON) };
    });
    slot.fact = fact;
    this.cache.set(typeId, slot);
    return fact;
  }
}

function isAgentPlatform(platform: NodeJS.Platform): platform is AgentPlatform {
  return (AGENT_PLATFORMS as readonly string[]).includes(platform);
}
