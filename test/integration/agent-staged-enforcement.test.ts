/**
 * Staged enforcement as the agent sees it, end to end: a real controller holds a failing check in `warn` mode
 * (deadline ahead), in `report-only` mode, and a failing check covered by an exception; the real agent core
 * reads its services and shows the first as `warned` with the deadline and the fix, the second as plainly
 * granted (report-only is the administrator's business), the third as granted with "exception until".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { MemoryCredentialStore } from '../../src/agent/credentials/memory-credential-store.js';
import type { ServiceAccessView } from '../../src/api/service-access.js';
import { createUser, MGMT, type Api } from '../helpers/api.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { adminApi, guardedService, ScriptedPromptPort } from '../helpers/agent-setup.js';

const ROLE = 'rollout-users';
// AGENT_VERSION fails for any agent below 99: a failing check that needs no report from this machine.
const FAILING = { typeId: 'AGENT_VERSION', versions: '>=99.0.0' };
const deadline = new Date(Date.now() + 7 * 86_400_000).toISOString();
const expiry = new Date(Date.now() + 3 * 86_400_000).toISOString();
let controller: TestController;
let admin: Api;
let agent: Agent;

const byName = (views: ServiceAccessView[], name: string) => views.find((v) => v.name === name)!;

beforeAll(async () => {
  controller = await startTestController();
  admin = await adminApi(controller.url);
  const identityId = await createUser(admin, 'rollout-user', 'rollout-password', { roleAttributes: [ROLE] });
  await guardedService(admin, 'warned', ROLE, {
    ...FAILING,
    enforcement: { mode: 'warn', enforceFrom: deadline },
  });
  await guardedService(admin, 'report-only', ROLE, { ...FAILING, enforcement: { mode: 'report-only' } });
  const { checkId } = await guardedService(admin, 'excepted', ROLE, FAILING);
  await guardedService(admin, 'enforced', ROLE, FAILING);
  const granted = await admin.post(`${MGMT}/posture-check-exceptions`, {
    identityId,
    postureCheckId: checkId,
    expiresAt: expiry,
    reason: 'agent update scheduled for Thursday',
  });
  expect(granted.status, JSON.stringify(granted.body)).toBe(201);
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

describe('staged enforcement on the agent', () => {
  it('shows warned with its deadline, report-only as granted, an exception with its end, enforce as blocked', async () => {
    await agent.login({ username: 'rollout-user', password: 'rollout-password' });
    await agent.reportNow();
    const views = await agent.refreshServices();

    const warned = byName(views, 'warned');
    expect(warned.access).toBe('warned');
    expect(warned.warnings).toHaveLength(1);
    expect(Date.parse(warned.warnings[0]!.enforceFrom)).toBe(Date.parse(deadline));
    expect(warned.warnings[0]!.code).toBe('AGENT_VERSION_OUT_OF_RANGE');

    const reportOnly = byName(views, 'report-only');
    expect(reportOnly).toMatchObject({ access: 'granted', warnings: [], exceptionUntil: null });

    const excepted = byName(views, 'excepted');
    expect(excepted.access).toBe('granted');
    expect(Date.parse(excepted.exceptionUntil!)).toBe(Date.parse(expiry));

    expect(byName(views, 'enforced').access).toBe('blocked');
  });
});
