/**
 * The real agent core (real collectors on this machine) against the real controller: checks built from this
 * machine's OS version, MAC and a running process's path and sha256 pass once the agent reports; a wrong
 * hash keeps its service blocked, and the refusal is recorded with the actual hash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { isControllerError } from '../../src/controller-client/controller-error.js';
import { MemoryCredentialStore } from '../../src/agent/credentials/memory-credential-store.js';
import type { ServiceAccessView } from '../../src/api/service-access.js';
import { createUser, MGMT, type Api } from '../helpers/api.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import {
  adminApi,
  guardedService,
  machineFacts,
  ScriptedPromptPort,
  shiftControllerClock,
} from '../helpers/agent-setup.js';

const ROLE = 'posture-users';
let controller: TestController;
let admin: Api;
let identityId: string;
let agent: Agent;
const ids: Record<string, string> = {};
const facts = machineFacts();
const WRONG_HASH = '0'.repeat(64);

const byName = (views: ServiceAccessView[], name: string) => views.find((v) => v.name === name);

beforeAll(async () => {
  controller = await startTestController();
  admin = await adminApi(controller.url);
  identityId = await createUser(admin, 'posture-user', 'posture-password', { roleAttributes: [ROLE] });
  const services: [string, Record<string, unknown> | undefined][] = [
    ['os', { typeId: 'OS', operatingSystems: [{ type: 'Linux', versions: [facts.osRange] }] }],
    ['mac', { typeId: 'MAC', macAddresses: [facts.mac.toUpperCase().replaceAll(':', '-')] }],
    [
      'process',
      {
        typeId: 'PROCESS',
        process: { osType: 'Linux', path: facts.processPath, hashes: [facts.processHash] },
      },
    ],
    [
      'multi',
      {
        typeId: 'PROCESS_MULTI',
        semantic: 'AllOf',
        processes: [{ osType: 'Linux', path: facts.processPath, hashes: [facts.processHash] }],
      },
    ],
    [
      'wrong-hash',
      { typeId: 'PROCESS', process: { osType: 'Linux', path: facts.processPath, hashes: [WRONG_HASH] } },
    ],
    ['open', undefined],
  ];
  for (const [name, check] of services)
    ids[name] = (await guardedService(admin, name, ROLE, check)).serviceId;
  agent = new Agent({
    controllerUrl: controller.url,
    credentials: new MemoryCredentialStore(),
    prompt: new ScriptedPromptPort(),
    platform: 'linux',
  });
});

afterAll(async () => {
  await agent?.stop();
  await controller?.dispose();
});

describe.runIf(process.platform === 'linux')('agent posture against the real controller', () => {
  it('sees the checked services as checking before it reports', async () => {
    const status = await agent.login({ username: 'posture-user', password: 'posture-password' });
    expect(status).toMatchObject({ state: 'active', mfa: 'not-enrolled' });
    const views = await agent.refreshServices();
    expect(byName(views, 'open')?.access).toBe('granted');
    // Nothing reported yet: "checking", each saying what the device has yet to send.
    for (const name of ['os', 'mac', 'process', 'multi', 'wrong-hash']) {
      expect(byName(views, name)?.access).toBe('checking');
      expect(byName(views, name)?.failing.every((f) => f.code === 'NO_DATA_YET')).toBe(true);
    }
  });

  it("reports this machine's real posture once, and the checks built from it pass", async () => {
    const result = await agent.reportNow();
    expect(result.error).toBeUndefined();
    // One OS, one MAC and one PROCESS for the path three checks share.
    expect(result.sent.map((r) => r.typeId).sort()).toEqual(['MAC', 'OS', 'PROCESS']);
    expect(result.sent.find((r) => r.typeId === 'PROCESS')).toMatchObject({
      path: facts.processPath,
      isRunning: true,
      hash: facts.processHash,
    });

    const views = agent.services();
    for (const name of ['os', 'mac', 'process', 'multi', 'open'])
      expect(byName(views, name)?.access, name).toBe('granted');
    for (const name of ['os', 'mac', 'process', 'multi']) {
      await expect(agent.api.createSession(ids[name]!)).resolves.toMatchObject({ serviceId: ids[name] });
    }
  });

  it('keeps the wrong-hash service blocked, explains it, and the refusal is recorded with the actual hash', async () => {
    const view = byName(agent.services(), 'wrong-hash');
    expect(view?.access).toBe('blocked');
    expect(view?.failing[0]?.explanation).toContain(facts.processPath);

    const refusal = await agent.api.createSession(ids['wrong-hash']!).catch((e: unknown) => e);
    expect(isControllerError(refusal, 'INVALID_POSTURE')).toBe(true);

    const failures = await admin.get(`${MGMT}/identities/${identityId}/failed-service-requests`);
    expect(failures.status).toBe(200);
    const record = failures.body.data.find((f: { serviceId: string }) => f.serviceId === ids['wrong-hash']);
    expect(record).toBeDefined();
    const check = record.policyFailures[0].checks[0];
    expect(check.postureCheckType).toBe('PROCESS');
    expect(check.actualValue).toMatchObject({ isRunning: true, hash: facts.processHash });
    expect(JSON.stringify(check.expectedValue)).toContain(WRONG_HASH);
  });

  it('sends nothing on the next cycle while nothing changed', async () => {
    const result = await agent.reportNow();
    expect(result.error).toBeUndefined();
    expect(result.sent).toEqual([]);
    expect(result.unchanged).toHaveLength(3);
  });

  it('signs in again when the API session expires, and resends everything to the new session', async () => {
    const before = agent.status().apiSessionId;
    // Past the 30-minute idle timeout as far as the controller is concerned.
    shiftControllerClock(controller.ctx, 31 * 60_000);
    const result = await agent.reportNow();
    expect(result.error).toBeUndefined();
    expect(agent.status().apiSessionId).not.toBe(before);
    expect(agent.status().state).toBe('active');
    expect(result.full).toBe(true);
    expect(result.sent.map((r) => r.typeId).sort()).toEqual(['MAC', 'OS', 'PROCESS']);
  });
});
