/**
 * The agent's posture collection with every check type enabled, on this machine with its real collectors: OS,
 * MAC, DOMAIN, 20 processes (PROCESS_MULTI) and the descriptors' facts (DISK_ENCRYPTION, FIREWALL, SCREEN_LOCK),
 * planned from a service list and collected as the reporter's cycle does (collect-answers.ts). Figures:
 * - warm: every answer cached or cheap (what almost every 20-s cycle costs), against the same cycle
 *   without the three facts;
 * - refresh: the cycle in which the 30-s facts (firewall, screen lock) are due again and re-read, every
 *   tenth also disk encryption (5 min): what one cycle in two costs at the default interval.
 * The controller round trip of a cycle is measured by agent-cycle.ts; this is the part the facts add.
 */
import os from 'node:os';
import { HashCache } from '../src/agent/collectors/hash-cache.js';
import { createCollector } from '../src/agent/collectors/create-collector.js';
import { FactCollector } from '../src/agent/collectors/facts/fact-collector.js';
import { collectAnswers } from '../src/agent/posture/collect-answers.js';
import { planCollection } from '../src/agent/posture/query-plan.js';
import type { PostureQuery, ServiceDetail } from '../src/api/services.js';
import { silentLogger } from '../src/common/logger.js';
import { queriedBinaries } from './lib/binaries.js';
import { figure, median, type Figure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { BenchSkipped } from './lib/skipped.js';

const PROCESSES = 20;
const FACT_TYPES = ['DISK_ENCRYPTION', 'FIREWALL', 'SCREEN_LOCK'];

function serviceWith(queryTypes: string[], paths: string[]): ServiceDetail {
  const queries: PostureQuery[] = queryTypes.map((queryType) => ({
    id: `check-${queryType.toLowerCase()}`,
    queryType,
    isPassing: false,
    timeout: -1,
    timeoutRemaining: -1,
    ...(queryType === 'PROCESS_MULTI' ? { processes: paths.map((path) => ({ osType: 'Linux', path })) } : {}),
  }));
  return {
    id: 'svc',
    name: 'svc',
    createdAt: '',
    updatedAt: '',
    permissions: ['Dial'],
    postureQueries: [{ policyId: 'pol', policyType: 'Dial', isPassing: false, postureQueries: queries }],
  } as ServiceDetail;
}

export async function agentCollectFigures(options: BenchOptions): Promise<Figure[]> {
  if (os.platform() !== 'linux') throw new BenchSkipped('the agent benches run the Linux collectors');
  const binaries = queriedBinaries(PROCESSES);
  const base = ['OS', 'MAC', 'DOMAIN', 'PROCESS_MULTI'];
  const all = serviceWith([...base, ...FACT_TYPES], binaries.paths);
  const without = serviceWith(base, binaries.paths);
  const collector = createCollector({ platform: 'linux', hashCache: new HashCache() });
  let now = Date.now();
  // As a desktop session's agent reads them: the bench may run as root, whose screen lock is not read.
  const facts = new FactCollector({ platform: 'linux', now: () => now, environment: { uid: 1000 } });
  const cycle = async (service: ServiceDetail) => {
    const started = performance.now();
    const plan = planCollection([service], 'linux');
    const answers = await collectAnswers(plan, collector, facts, silentLogger);
    const ms = performance.now() - started;
    if (answers.length !== plan.processes.length + (plan.os ? 3 : 0) + plan.facts.length)
      throw new Error(`expected every answer, got ${answers.length}`);
    return { ms, answers };
  };

  const cold = await cycle(all);
  const factAnswers = cold.answers.filter((a) => FACT_TYPES.includes(a.typeId));
  for (let i = 0; i < 5; i++) await Promise.all([cycle(all), cycle(without)]);
  const cycles = options.quick ? 20 : 60;
  const warm: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < cycles; i++) {
    warm.push((await cycle(all)).ms);
    baseline.push((await cycle(without)).ms);
  }
  const refresh: number[] = [];
  for (let i = 0; i < (options.quick ? 10 : 30); i++) {
    now += 31_000; // past the firewall and screen lock TTL (30 s); disk encryption every tenth time (5 min)
    refresh.push((await cycle(all)).ms);
  }
  const factWords = factAnswers.map((a) => JSON.stringify(a)).join(' ');
  return [
    figure({
      name: 'agent.collect-warm-all',
      label: `agent posture collection, warm, every check type (OS, MAC, DOMAIN, ${PROCESSES} processes, 3 facts; median)`,
      value: median(warm),
      unit: 'ms',
      baseline: median(baseline),
      baselineLabel: 'the same collection without the three facts',
      target: { valueMax: 25 },
      note: `${cycles} cycles each, interleaved; real collectors on this machine; first (cold) collection ${cold.ms.toFixed(1)} ms; answers: ${factWords}`,
    }),
    figure({
      name: 'agent.collect-refresh-facts',
      label: 'the same collection when firewall and screen lock are due again (every 30 s; median)',
      value: median(refresh),
      unit: 'ms',
      baseline: median(warm),
      baselineLabel: 'the warm collection',
      target: null,
      note: 'firewall: systemctl, nft and iptables; screen lock: gsettings x3; disk encryption (5-min TTL) in one of ten',
    }),
  ];
}
