/**
 * A controller restart mid-run: the controller (the real CLI, as a child process) is stopped while the
 * agent reports every half second, then started again on the same data dir and port. The agent survives
 * the outage without a crash, notices it, and sends all of its posture data again once the controller is
 * back.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { MemoryCredentialStore } from '../../src/agent/credentials/memory-credential-store.js';
import type { ReportResult } from '../../src/agent/posture/posture-reporter.js';
import { createUser, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, spawnController, tempDir, type ControllerProcess } from '../helpers/controller.js';
import { adminApi, guardedService, machineFacts, ScriptedPromptPort } from '../helpers/agent-setup.js';

const dataDir = tempDir('postern-agent-restart-');
const env = { POSTERN_ADMIN_PASSWORD: ADMIN_PASSWORD };
let controller: ControllerProcess | undefined;
let agent: Agent | undefined;

afterAll(async () => {
  await agent?.stop();
  await controller?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Resolves with the first report matching `predicate`. */
function nextReport(
  a: Agent,
  predicate: (r: ReportResult) => boolean,
  timeoutMs = 20_000,
): Promise<ReportResult> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error('no matching report in time'));
    }, timeoutMs);
    const off = a.reporter.reports.on((r) => {
      if (!predicate(r)) return;
      clearTimeout(timer);
      off();
      resolve(r);
    });
  });
}

describe.runIf(process.platform === 'linux')('agent across a controller restart', () => {
  it('survives the outage and resends everything to the restarted controller', async () => {
    controller = await spawnController(['--data-dir', dataDir, '--port', '0', '--log-level', 'warn'], env);
    const url = controller.url;
    const port = new URL(url).port;
    const admin = await adminApi(url);
    const identityId = await createUser(admin, 'restart-user', 'restart-password', {
      roleAttributes: ['restarters'],
    });
    const facts = machineFacts();
    await guardedService(admin, 'os', 'restarters', {
      typeId: 'OS',
      operatingSystems: [{ type: 'Linux', versions: [facts.osRange] }],
    });
    await guardedService(admin, 'mac', 'restarters', { typeId: 'MAC', macAddresses: [facts.mac] });

    const prompt = new ScriptedPromptPort();
    agent = new Agent({
      controllerUrl: url,
      credentials: new MemoryCredentialStore(),
      prompt,
      reportIntervalMs: 500,
      retry: { maxRetries: 1, baseDelayMs: 50 },
      platform: 'linux',
    });
    await agent.login({ username: 'restart-user', password: 'restart-password' });
    const first = nextReport(agent, (r) => r.sent.length > 0);
    agent.start();
    expect((await first).sent.map((r) => r.typeId).sort()).toEqual(['MAC', 'OS']);
    // Unchanged data is not sent again while the controller stays up.
    expect((await nextReport(agent, () => true)).sent).toEqual([]);

    const failing = nextReport(agent, (r) => r.error !== undefined);
    expect(await controller.stop()).toBe(0);
    controller = undefined;
    expect((await failing).error?.message).toContain('cannot reach the controller');
    expect(prompt.notices).toContainEqual({ type: 'controller-unreachable', controllerUrl: url });

    const restartedAt = Date.now();
    const resent = nextReport(agent, (r) => r.sent.length > 0);
    controller = await spawnController(['--data-dir', dataDir, '--port', port, '--log-level', 'warn'], env);
    const after = await resent;
    expect(after.full).toBe(true);
    expect(after.sent.map((r) => r.typeId).sort()).toEqual(['MAC', 'OS']);
    expect(prompt.notices).toContainEqual({ type: 'controller-reachable', controllerUrl: url });
    expect(agent.status()).toMatchObject({ state: 'active', reachable: true });
    expect(agent.services().map((s) => [s.name, s.access])).toEqual([
      ['mac', 'granted'],
      ['os', 'granted'],
    ]);

    const data = await (await adminApi(url)).get(`${MGMT}/identities/${identityId}/posture-data`);
    expect(Date.parse(data.body.data.os.lastUpdatedAt)).toBeGreaterThanOrEqual(restartedAt - 1_000);
  }, 60_000);
});
