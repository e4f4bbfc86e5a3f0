/**
 * The device health checks end to end: the real agent core, with its real Linux fact collectors reading this
 * machine, reports to the real controller exactly the facts its checks ask for, and each check's verdict
 * follows the fact that was sent (whatever this machine's firewall, screen lock and disk are: the test reads
 * the same fact the controller decided on). AGENT_VERSION is read from the agent's own sign-in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { MemoryCredentialStore } from '../../src/agent/credentials/memory-credential-store.js';
import type { ServiceAccessView } from '../../src/api/service-access.js';
import { createUser, type Api } from '../helpers/api.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { adminApi, guardedService, ScriptedPromptPort } from '../helpers/agent-setup.js';

const ROLE = 'health-users';
let controller: TestController;
let admin: Api;
let agent: Agent;
const checks: Record<string, string> = {};

const byName = (views: ServiceAccessView[], name: string) => views.find((v) => v.name === name)!;

beforeAll(async () => {
  controller = await startTestController();
  admin = await adminApi(controller.url);
  await createUser(admin, 'health-user', 'health-password', { roleAttributes: [ROLE] });
  const guarded: [string, Record<string, unknown>][] = [
    ['firewall', { typeId: 'FIREWALL' }],
    ['screen', { typeId: 'SCREEN_LOCK', maxIdleMinutes: 10 }],
    ['disk', { typeId: 'DISK_ENCRYPTION', allVolumes: false }],
    ['current-agent', { typeId: 'AGENT_VERSION', versions: '>=0.1.0' }],
    ['future-agent', { typeId: 'AGENT_VERSION', versions: '>=99.0.0' }],
  ];
  for (const [name, check] of guarded)
    checks[name] = (await guardedService(admin, name, ROLE, check)).checkId!;
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

describe.runIf(process.platform === 'linux')('device health checks, agent to controller', () => {
  it('sends one fact per check that asks for it, and each verdict follows the fact sent', async () => {
    await agent.login({ username: 'health-user', password: 'health-password' });
    await agent.refreshServices();
    const result = await agent.reportNow();
    expect(result.error).toBeUndefined();
    const sent = new Map(
      result.sent.map((r) => [r.typeId as string, r as unknown as Record<string, unknown>]),
    );
    // Only what the checks ask for: no OS, MAC or process report, and nothing for AGENT_VERSION.
    expect([...sent.keys()].sort()).toEqual(['DISK_ENCRYPTION', 'FIREWALL', 'SCREEN_LOCK']);
    expect(sent.get('FIREWALL')!.id).toBe(checks.firewall);

    const views = agent.services();
    const firewall = sent.get('FIREWALL')!;
    if (firewall.enabled === true) expect(byName(views, 'firewall').access).toBe('granted');
    else
      expect(byName(views, 'firewall').failing.map((f) => f.code)).toEqual([
        firewall.enabled === false ? 'FIREWALL_OFF' : 'FIREWALL_UNKNOWN',
      ]);

    const screen = sent.get('SCREEN_LOCK')!;
    const locksInTime =
      screen.lockEnabled === true && typeof screen.idleMinutes === 'number' && screen.idleMinutes <= 10;
    if (locksInTime) expect(byName(views, 'screen').access).toBe('granted');
    else expect(byName(views, 'screen').failing[0]?.code).toMatch(/^SCREEN_LOCK_(OFF|TOO_LATE|UNKNOWN)$/);

    const disk = sent.get('DISK_ENCRYPTION')!;
    if (disk.encrypted === true) expect(byName(views, 'disk').access).toBe('granted');
    else
      expect(byName(views, 'disk').failing.map((f) => f.code)).toEqual([
        disk.encrypted === false ? 'DISK_NOT_ENCRYPTED' : 'DISK_ENCRYPTION_UNKNOWN',
      ]);
    // A fact the agent could not read says why, and never passes.
    for (const fact of sent.values())
      if (Object.values(fact).includes(null)) expect(fact.unknownReason).toEqual(expect.any(String));

    // The agent signed in as version 0.1.0 (package.json).
    expect(byName(views, 'current-agent').access).toBe('granted');
    expect(byName(views, 'future-agent').failing.map((f) => f.code)).toEqual(['AGENT_VERSION_OUT_OF_RANGE']);
  });
});
