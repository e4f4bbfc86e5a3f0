/** Hand-made stand-ins for the controller API and the collector, recording what the agent does with them. */
import type {
  AnyPostureResponse,
  PostureResponse,
  PostureResponseReply,
} from '../../../src/api/posture-responses.js';
import type { PostureQuery, ServiceDetail } from '../../../src/api/services.js';
import type { EdgeApi } from '../../../src/agent/client/edge-api.js';
import type { PostureCollector, ProcessQuery } from '../../../src/agent/collectors/posture-collector.js';

let nextId = 0;

export function query(queryType: string, fields: Partial<PostureQuery> = {}): PostureQuery {
  return {
    id: `q-${queryType.toLowerCase()}-${++nextId}`,
    queryType,
    isPassing: false,
    timeout: -1,
    timeoutRemaining: -1,
    ...fields,
  };
}

export function service(name: string, queries: PostureQuery[], isPassing = false): ServiceDetail {
  return {
    id: `svc-${name}`,
    name,
    createdAt: '',
    updatedAt: '',
    permissions: ['Dial'],
    postureQueries: [{ policyId: `pol-${name}`, policyType: 'Dial', isPassing, postureQueries: queries }],
  };
}

/** An EdgeApi whose answers the test sets; every call is recorded. */
export class FakeEdgeApi {
  services: ServiceDetail[] = [];
  lastChangeAt = '2026-01-01T00:00:00.000Z';
  reply: PostureResponseReply = { services: [] };
  /** Set to make the next bulk send fail (then cleared). */
  failNextSend: Error | undefined;
  readonly bulkSends: AnyPostureResponse[][] = [];
  readonly singleSends: AnyPostureResponse[] = [];
  listCalls = 0;

  async listServices(): Promise<ServiceDetail[]> {
    this.listCalls++;
    return structuredClone(this.services);
  }

  async serviceUpdates() {
    return { lastChangeAt: this.lastChangeAt };
  }

  async postPostureBulk(responses: readonly AnyPostureResponse[]): Promise<PostureResponseReply> {
    if (this.failNextSend) {
      const error = this.failNextSend;
      this.failNextSend = undefined;
      throw error;
    }
    this.bulkSends.push(structuredClone([...responses]));
    return { services: [] };
  }

  async postPosture(response: AnyPostureResponse): Promise<PostureResponseReply> {
    this.singleSends.push(structuredClone(response));
    return structuredClone(this.reply);
  }

  asEdgeApi(): EdgeApi {
    return this as unknown as EdgeApi;
  }
}

/** A collector with settable facts that counts calls and can be held mid-collection. */
export class FakeCollector implements PostureCollector {
  kernel = '6.8.0';
  macs = ['aa:bb:cc:dd:ee:ff'];
  running = new Set<string>();
  calls = { os: 0, mac: 0, domain: 0, processes: 0 };
  active = 0;
  maxActive = 0;
  private gate: Promise<void> | undefined;
  private openGate: (() => void) | undefined;

  /** Collections wait until `release()`. */
  hold(): void {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
  }

  release(): void {
    this.openGate?.();
    this.gate = undefined;
  }

  private async enter<T>(fn: () => T): Promise<T> {
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      await this.gate;
      return fn();
    } finally {
      this.active--;
    }
  }

  collectOs(id: string) {
    this.calls.os++;
    return this.enter(() => ({
      id,
      typeId: 'OS' as const,
      type: 'Linux',
      version: this.kernel,
      build: '#1',
    }));
  }

  collectMac(id: string) {
    this.calls.mac++;
    return this.enter(() => ({ id, typeId: 'MAC' as const, macAddresses: [...this.macs] }));
  }

  collectDomain(id: string) {
    this.calls.domain++;
    return this.enter(() => ({ id, typeId: 'DOMAIN' as const, domain: '' }));
  }

  collectProcesses(queries: readonly ProcessQuery[]) {
    this.calls.processes++;
    return this.enter(() =>
      queries.map(({ id, path }) => ({
        id,
        typeId: 'PROCESS' as const,
        path,
        isRunning: this.running.has(path),
        hash: 'ab'.repeat(32),
        signerFingerprints: [],
      })),
    );
  }
}

export const typesOf = (responses: readonly PostureResponse[] | readonly AnyPostureResponse[]) =>
  responses.map((r) => (r.typeId === 'PROCESS' ? `PROCESS:${r.path}` : r.typeId)).sort();
