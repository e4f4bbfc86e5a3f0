/**
 * Collects the answers a collection plan asks for, all at once; one failing collector does not hold back the
 * others' answers (it is logged). The reporter's cycle and the agent bench run this same code.
 */
import type { PostureResponse } from '../../api/posture-responses.js';
import type { FactCollector } from '../collectors/facts/fact-collector.js';
import type { PostureCollector } from '../collectors/posture-collector.js';
import { errorMessage, type AgentLogger } from '../../common/logger.js';
import type { CollectionPlan } from './query-plan.js';

export async function collectAnswers(
  plan: CollectionPlan,
  collector: PostureCollector,
  facts: Pick<FactCollector, 'collect'> | undefined,
  log: AgentLogger,
): Promise<PostureResponse[]> {
  const jobs: Promise<PostureResponse[]>[] = [];
  if (plan.os) jobs.push(collector.collectOs(plan.os).then((r) => [r]));
  if (plan.mac) jobs.push(collector.collectMac(plan.mac).then((r) => [r]));
  if (plan.domain) jobs.push(collector.collectDomain(plan.domain).then((r) => [r]));
  if (plan.processes.length > 0) jobs.push(collector.collectProcesses(plan.processes));
  if (facts) for (const { typeId, id } of plan.facts) jobs.push(facts.collect(typeId, id).then((r) => [r]));
  const results = await Promise.allSettled(jobs);
  const responses: PostureResponse[] = [];
  for (const result of results) {
    if (result.status === 'fulfilled') responses.push(...result.value);
    else log.warn(`posture collection failed: ${errorMessage(result.reason)}`);
  }
  return responses;
}
