/**
 * What to collect for a service list: one OS, one MAC and one DOMAIN answer whatever the number of checks
 * asking, and one PROCESS answer per distinct binary path across PROCESS and PROCESS_MULTI checks (the
 * controller matches process reports by path). A type with a fact collector (facts/fact-registry.ts) gets one
 * answer whatever the number of its checks. MFA is answered by a code, never by posture data.
 */
import type { PostureResponse } from '../../api/posture-responses.js';
import type { PostureQuery, PostureQueryProcess, ServiceDetail } from '../../api/services.js';
import type { ProcessQuery } from '../collectors/posture-collector.js';
import { isFactType, type FactTypeId } from '../collectors/facts/fact-registry.js';

/** A check of a type whose descriptor declares a fact (DISK_ENCRYPTION, ...): one answer per type. */
export interface FactQuery {
  typeId: FactTypeId;
  id: string;
}

export interface CollectionPlan {
  /** The posture check id each answer carries; undefined when nothing asks. */
  os?: string;
  mac?: string;
  domain?: string;
  processes: ProcessQuery[];
  /** sorted by type, so answers come in a stable order */
  facts: FactQuery[];
}

const OS_TYPES_BY_PLATFORM: Partial<Record<NodeJS.Platform, string[]>> = {
  linux: ['linux'],
  win32: ['windows', 'windowsserver'],
  darwin: ['macos'],
};

/** A process entry for another OS cannot run here; asking the collector about it is wasted work. */
function appliesHere(process: PostureQueryProcess, platform: NodeJS.Platform): boolean {
  const wanted = OS_TYPES_BY_PLATFORM[platform];
  return !process.osType || !wanted || wanted.includes(process.osType.toLowerCase());
}

/** The smallest id wins, so the answer's id does not flip when the controller lists services in another order. */
function pick(current: string | undefined, id: string): string {
  return current === undefined || id < current ? id : current;
}

export function planCollection(
  services: readonly ServiceDetail[],
  platform: NodeJS.Platform = process.platform,
): CollectionPlan {
  const plan: CollectionPlan = { processes: [], facts: [] };
  const processes = new Map<string, string>();
  const facts = new Map<FactTypeId, string>();
  const addProcess = (query: PostureQuery, entry: PostureQueryProcess | undefined) => {
    if (!entry?.path || !appliesHere(entry, platform)) return;
    processes.set(entry.path, pick(processes.get(entry.path), query.id));
  };
  for (const service of services) {
    for (const policy of service.postureQueries ?? []) {
      for (const query of policy.postureQueries ?? []) {
        switch (query.queryType) {
          case 'OS':
            plan.os = pick(plan.os, query.id);
            break;
          case 'MAC':
            plan.mac = pick(plan.mac, query.id);
            break;
          case 'DOMAIN':
            plan.domain = pick(plan.domain, query.id);
            break;
          case 'PROCESS':
            addProcess(query, query.process);
            break;
          case 'PROCESS_MULTI':
            for (const entry of query.processes ?? []) addProcess(query, entry);
            break;
          default:
            if (isFactType(query.queryType))
              facts.set(query.queryType, pick(facts.get(query.queryType), query.id));
            break;
        }
      }
    }
  }
  plan.facts = [...facts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([typeId, id]) => ({ typeId, id }));
  plan.processes = [...processes].sort(([a], [b]) => (a < b ? -1 : 1)).map(([path, id]) => ({ id, path }));
  return plan;
}

/** The slot an answer occupies: one per type, one per process path. */
export function responseKey(response: PostureResponse): string {
  return response.typeId === 'PROCESS' ? `PROCESS:${response.path}` : response.typeId;
}
