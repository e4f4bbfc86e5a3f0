/**
 * The headless agent left alone: `src/agent/cli.ts run` in a child process against a controller child,
 * signed in, its services querying OS, MAC, DOMAIN and a process, reporting on its default 20 s interval.
 * After it has settled, its CPU time (utime + stime from /proc/<pid>/stat) over 60 s and its resident memory
 * are read, next to a do-nothing Node process loaded the same way (through tsx) over the same minute.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import os from 'node:os';
import { rmSync } from 'node:fs';
import { createUser } from '../test/helpers/api.js';
import { startAgentRun } from '../test/helpers/reliability-agent-process.js';
import { created } from './lib/api-setup.js';
import { adminOf, startControllerChild } from './lib/children.js';
import { figure, type Figure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { cpuSeconds, rssMiB, sleep } from './lib/proc-stats.js';

async function idleNode(): Promise<{ pid: number; stop(): void }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'lib', 'idle-node.ts')],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  return { pid: child.pid!, stop: () => void child.kill('SIGTERM') };
}

export async function agentIdleFigures(options: BenchOptions): Promise<Figure[]> {
  const seconds = options.quick ? 20 : 60;
  const controller = await startControllerChild();
  let agent: ReturnType<typeof startAgentRun> | undefined;
  let baseline: Awaited<ReturnType<typeof idleNode>> | undefined;
  try {
    const admin = await adminOf(controller.url);
    const [major = '0', minor = '0'] = os.release().split('.');
    const checks = [
      await created(admin, 'posture-checks', {
        name: 'idle-os',
        typeId: 'OS',
        operatingSystems: [{ type: 'Linux', versions: [`>=${major}.${minor}.0`] }],
      }),
      await created(admin, 'posture-checks', {
        name: 'idle-mac',
        typeId: 'MAC',
        macAddresses: ['aa:bb:cc:dd:ee:ff'],
      }),
      await created(admin, 'posture-checks', {
        name: 'idle-domain',
        typeId: 'DOMAIN',
        domains: ['bench.example'],
      }),
      await created(admin, 'posture-checks', {
        name: 'idle-process',
        typeId: 'PROCESS',
        process: { osType: 'Linux', path: process.execPath },
      }),
    ];
    const serviceId = await created(admin, 'services', { name: 'idle-service' });
    await created(admin, 'service-policies', {
      name: 'idle-policy',
      type: 'Dial',
      semantic: 'AllOf',
      identityRoles: ['#idle'],
      serviceRoles: [`@${serviceId}`],
      postureCheckRoles: checks.map((id) => `@${id}`),
    });
    await createUser(admin, 'idle-agent', 'bench-password', { roleAttributes: ['idle'] });
    agent = startAgentRun({
      controllerUrl: controller.url,
      username: 'idle-agent',
      password: 'bench-password',
    });
    await agent.waitFor(/sent \d+ posture response/);
    baseline = await idleNode();
    await sleep(5_000); // past start-up work (first cycle, service refresh, JIT)

    const agentBefore = cpuSeconds(agent.pid);
    const baseBefore = cpuSeconds(baseline.pid);
    const started = performance.now();
    await sleep(seconds * 1000);
    const elapsed = (performance.now() - started) / 1000;
    const agentCpu = ((cpuSeconds(agent.pid) - agentBefore) / elapsed) * 100;
    const baseCpu = ((cpuSeconds(baseline.pid) - baseBefore) / elapsed) * 100;
    const agentRss = rssMiB(agent.pid);
    const baseRss = rssMiB(baseline.pid);
    if (agent.child.exitCode !== null)
      throw new Error(`the agent exited during the idle run:\n${agent.output()}`);
    return [
      figure({
        name: 'agent.idle-cpu',
        label: `agent idle CPU over ${seconds} s of \`run\` (20 s report interval)`,
        value: agentCpu,
        unit: '% of a core',
        target: { valueMax: 0.5 },
        note: `utime+stime from /proc/<pid>/stat; a do-nothing node (tsx) used ${baseCpu.toFixed(3)} % over the same time; ratio is to the target`,
      }),
      figure({
        name: 'agent.rss',
        label: 'headless agent resident memory (`run`, signed in, idle)',
        value: agentRss,
        unit: 'MiB',
        baseline: baseRss,
        baselineLabel: 'a do-nothing node process loaded through tsx',
        note: 'VmRSS; informational (no target). Both run through tsx, which keeps esbuild and its source maps in memory',
      }),
    ];
  } finally {
    baseline?.stop();
    await agent?.stop();
    await controller.stop();
    rmSync(controller.dataDir, { recursive: true, force: true });
  }
}
