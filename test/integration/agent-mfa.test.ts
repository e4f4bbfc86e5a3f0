/**
 * MFA through the real agent core and the real controller: enrollment (computing codes like an
 * authenticator app), a simulated unlock that starts the 5-minute grace period and raises one prompt, the
 * grace lapsing (controller clock moved on), and a TOTP answer restoring access; then signing in again
 * with TOTP owed at login.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { isControllerError } from '../../src/controller-client/controller-error.js';
import { MemoryCredentialStore } from '../../src/agent/credentials/memory-credential-store.js';
import { secretOfProvisioningUrl } from '../../src/api/mfa.js';
import { createUser, MGMT, type Api } from '../helpers/api.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import {
  adminApi,
  guardedService,
  ScriptedPromptPort,
  shiftControllerClock,
  totpAt,
} from '../helpers/agent-setup.js';

const ROLE = 'mfa-users';
const GRACE_MS = 300_000;
let controller: TestController;
let admin: Api;
let identityId: string;
let mfaServiceId: string;
let secret: string;
const store = new MemoryCredentialStore();
const port = new ScriptedPromptPort();
let agent: Agent;
/** What the controller thinks "now" is (moved on by the tests). */
let controllerNow = () => Date.now();

const access = (name: string) => agent.services().find((s) => s.name === name)?.access;

beforeAll(async () => {
  controller = await startTestController();
  admin = await adminApi(controller.url);
  identityId = await createUser(admin, 'mfa-user', 'mfa-password', { roleAttributes: [ROLE] });
  mfaServiceId = (
    await guardedService(admin, 'mfa', ROLE, {
      typeId: 'MFA',
      timeoutSeconds: -1,
      promptOnUnlock: true,
      promptOnWake: true,
    })
  ).serviceId;
  await guardedService(admin, 'open', ROLE);
  agent = new Agent({ controllerUrl: controller.url, credentials: store, prompt: port, platform: 'linux' });
});

afterAll(async () => {
  await agent?.stop();
  await controller?.dispose();
});

describe('agent MFA against the real controller', () => {
  it('enrolls with the provisioning URL and recovery codes, and verifying grants the MFA service', async () => {
    await agent.login({ username: 'mfa-user', password: 'mfa-password' });
    await agent.refreshServices();
    expect(access('mfa')).toBe('blocked');
    expect(agent.services().find((s) => s.name === 'mfa')?.failing[0]?.explanation).toBe(
      'Set up an authenticator app (MFA) for your account',
    );

    const enrollment = await agent.mfa.enroll();
    expect(enrollment.provisioningUrl).toMatch(/^otpauth:\/\/totp\//);
    expect(enrollment.recoveryCodes.length).toBeGreaterThan(0);
    secret = enrollment.secret;
    expect(secret).toBe(secretOfProvisioningUrl(enrollment.provisioningUrl));
    expect((await agent.mfa.status()).state).toBe('unverified');

    const wrong = await agent.verifyMfa('000000').catch((e: unknown) => e);
    expect(isControllerError(wrong, 'MFA_INVALID_TOKEN')).toBe(true);
    await agent.verifyMfa(await totpAt(secret, controllerNow()));
    expect(agent.status().mfa).toBe('enrolled');
    expect(access('mfa')).toBe('granted');
    await expect(agent.api.createSession(mfaServiceId)).resolves.toMatchObject({ serviceId: mfaServiceId });
  });

  it('a simulated unlock sends ENDPOINT_STATE, starts the 5-minute grace and raises one prompt', async () => {
    port.answer = () => null; // the user ignores the prompt
    const before = Date.now();
    await agent.simulatePowerEvent('unlock-screen');
    expect(port.prompts).toHaveLength(1);
    const prompt = port.prompts[0]!;
    expect(prompt).toMatchObject({
      reason: 'unlock',
      services: [{ id: mfaServiceId, name: 'mfa' }],
      acceptsRecoveryCode: true,
    });
    expect(prompt.deadline).toBeGreaterThanOrEqual(before + GRACE_MS);
    expect(prompt.deadline).toBeLessThanOrEqual(Date.now() + GRACE_MS);

    const data = await admin.get(`${MGMT}/identities/${identityId}/posture-data`);
    const sessionId = agent.status().apiSessionId!;
    expect(data.body.data.apiSessionPostureData[sessionId].endpointState.unlockedAt).toBeTruthy();
    // Within the grace period access holds.
    await agent.refreshServices();
    expect(access('mfa')).toBe('granted');
  });

  it('after the grace period access is lost, and answering with TOTP restores it', async () => {
    controllerNow = shiftControllerClock(controller.ctx, GRACE_MS + 1_000);
    await agent.refreshServices();
    expect(access('mfa')).toBe('mfa-needed');
    expect(access('open')).toBe('granted');
    const refused = await agent.api.createSession(mfaServiceId).catch((e: unknown) => e);
    expect(isControllerError(refused, 'INVALID_POSTURE')).toBe(true);

    port.answer = () => totpAt(secret, controllerNow());
    await expect(agent.promptForCode()).resolves.toBe(true);
    expect(port.prompts.at(-1)).toMatchObject({ services: [{ id: mfaServiceId }] });
    expect(port.notices).toContainEqual({ type: 'mfa-accepted', reason: 'timeout' });
    await agent.refreshServices();
    expect(access('mfa')).toBe('granted');
    await expect(agent.api.createSession(mfaServiceId)).resolves.toMatchObject({ serviceId: mfaServiceId });
  });

  it('a new login owes TOTP, answered through the same prompt port', async () => {
    const prompts = port.prompts.length;
    // A code one step later than the last accepted one: the controller refuses replays.
    port.answer = () => totpAt(secret, controllerNow() + 30_000);
    const fresh = new Agent({
      controllerUrl: controller.url,
      credentials: new MemoryCredentialStore(),
      prompt: port,
      platform: 'linux',
    });
    try {
      const status = await fresh.login({ username: 'mfa-user', password: 'mfa-password' });
      expect(status.state).toBe('active');
      expect(port.prompts.slice(prompts)).toEqual([
        expect.objectContaining({ reason: 'login', services: [] }),
      ]);
    } finally {
      await fresh.stop();
    }
  });
});
