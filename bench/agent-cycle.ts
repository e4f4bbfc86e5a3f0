/**
 * Agent figures that need no long wait:
 * - one posture cycle with a warm hash cache while the services query OS, MAC, DOMAIN and 20 processes,
 *   against the same cycle querying OS, MAC and DOMAIN only (0 processes), interleaved, against a real
 *   controller child. A warm cycle reads service-updates, collects, and sends nothing (nothing changed);
 * - cold hashing of those 20 binaries by the agent's HashCache (streamed sha256, the collector's parallel
 *   calls) against `sha256sum` of the same files, page cache warm for both.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { Agent } from '../src/agent/agent.js';
import { HashCache } from '../src/agent/collectors/hash-cache.js';
import { MemoryCredentialStore } from '../src/agent/credentials/memory-credential-store.js';
import type { PromptPort } from '../src/agent/prompts/prompt-port.js';
import { createUser } from '../test/helpers/api.js';
import { created, type Api } from './lib/api-setup.js';
import { queriedBinaries } from './lib/binaries.js';
import { adminOf, startControllerChild } from './lib/children.js';
import { figure, median, type Figure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';

const PROCESSES = 20;
const silentPrompts: PromptPort = { promptTotp: async () => null, notify: () => undefined };

/** OS, MAC and DOMAIN checks for this machine on a service reachable by `#role`, plus `extraChecks`. */
async function guardedService(admin: Api, role: string, extraChecks: string[]): Promise<void> {
  const [major = '0', minor = '0'] = os.release().split('.');
  const mac =
    Object.values(os.networkInterfaces())
      .flat()
      .find((i) => i && !i.internal && i.mac !== '00:00:00:00:00:00')?.mac ?? 'aa:bb:cc:dd:ee:ff';
  const checks = [
    await created(admin, 'posture-checks', {
      name: `${role}-os`,
      typeId: 'OS',
      operatingSystems: [{ type: 'Linux', versions: [`>=${major}.${minor}.0`] }],
    }),
    await created(admin, 'posture-checks', { name: `${role}-mac`, typeId: 'MAC', macAddresses: [mac] }),
    await created(admin, 'posture-checks', {
      name: `${role}-domain`,
      typeId: 'DOMAIN',
      domains: ['bench.example'],
    }),
    ...extraChecks,
  ];
  const serviceId = await created(admin, 'services', { name: `${role}-service` });
  await created(admin, 'service-policies', {
    name: `${role}-policy`,
    type: 'Dial',
    semantic: 'AllOf',
    identityRoles: [`#${role}`],
    serviceRoles: [`@${serviceId}`],
    postureCheckRoles: checks.map((id) => `@${id}`),
  });
}

async function signedInAgent(url: string, admin: Api, name: string, role: string): Promise<Agent> {
  await createUser(admin, name, 'bench-password', { roleAttributes: [role] });
  const agent = new Agent({
    controllerUrl: url,
    credentials: new MemoryCredentialStore(),
    prompt: silentPrompts,
    platform: 'linux',
    reportIntervalMs: 3_600_000,
  });
  await agent.login({ username: name, password: 'bench-password' });
  return agent;
}

async function timedCycle(agent: Agent): Promise<number> {
  const started = performance.now();
  const result = await agent.reportNow();
  const ms = performance.now() - started;
  if (result.error) throw new Error(`posture cycle failed: ${result.error.message}`);
  return ms;
}

export async function agentCycleFigures(options: BenchOptions): Promise<Figure[]> {
  const binaries = queriedBinaries(PROCESSES);
  if (binaries.paths.length < PROCESSES)
    throw new Error(`found only ${binaries.paths.length} binaries to query`);
  const controller = await startControllerChild();
  const agents: Agent[] = [];
  try {
    const admin = await adminOf(controller.url);
    const processes = await created(admin, 'posture-checks', {
      name: 'bench-processes',
      typeId: 'PROCESS_MULTI',
      semantic: 'AnyOf',
      processes: binaries.paths.map((path) => ({ osType: 'Linux', path })),
    });
    await guardedService(admin, 'cycle-twenty', [processes]);
    await guardedService(admin, 'cycle-zero', []);
    const twenty = await signedInAgent(controller.url, admin, 'cycle-twenty', 'cycle-twenty');
    const zero = await signedInAgent(controller.url, admin, 'cycle-zero', 'cycle-zero');
    agents.push(twenty, zero);
    const first = await twenty.reportNow();
    const asked = first.sent.filter((r) => r.typeId === 'PROCESS').length;
    if (asked !== PROCESSES)
      throw new Error(`the first cycle should answer ${PROCESSES} process queries, answered ${asked}`);
    await zero.reportNow();

    const cycles = options.quick ? 20 : 60;
    const withProcesses: number[] = [];
    const without: number[] = [];
    for (let i = 0; i < 5; i++) await Promise.all([timedCycle(twenty), timedCycle(zero)]); // warm
    for (let i = 0; i < cycles; i++) {
      withProcesses.push(await timedCycle(twenty));
      without.push(await timedCycle(zero));
    }

    // Cold hashing: a fresh cache each time; sha256sum of the same files. Page cache warmed by reading first.
    for (const path of binaries.paths) readFileSync(path);
    const rounds = options.quick ? 3 : 7;
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const cache = new HashCache();
      let started = performance.now();
      await Promise.all(binaries.paths.map((path) => cache.hash(path)));
      ours.push(performance.now() - started);
      started = performance.now();
      execFileSync('sha256sum', binaries.paths, { stdio: 'ignore' });
      theirs.push(performance.now() - started);
    }
    const mib = (binaries.totalBytes / 1024 / 1024).toFixed(1);
    return [
      figure({
        name: 'agent.cycle-warm-20',
        label: `agent posture cycle, warm hash cache, ${PROCESSES} processes (median)`,
        value: median(withProcesses),
        unit: 'ms',
        baseline: median(without),
        baselineLabel: 'the same cycle with 0 processes (OS, MAC, DOMAIN only)',
        target: { valueMax: 25 },
        note: `${cycles} cycles each, interleaved; each cycle reads service-updates from a controller child and sends nothing (unchanged); target is absolute (< 25 ms)`,
      }),
      figure({
        name: 'agent.cold-hash-20',
        label: `cold sha256 of the ${PROCESSES} queried binaries (${mib} MiB, median)`,
        value: median(ours),
        unit: 'ms',
        baseline: median(theirs),
        baselineLabel: 'sha256sum of the same files (one process, page cache warm)',
        target: { ratioMax: 1.3 },
        note: `${rounds} rounds alternating; files: ${binaries.paths.join(' ')}`,
      }),
    ];
  } finally {
    for (const agent of agents) await agent.stop();
    await controller.stop();
    rmSync(controller.dataDir, { recursive: true, force: true });
  }
}
