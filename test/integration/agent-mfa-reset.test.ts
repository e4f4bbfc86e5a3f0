/**
 * An administrator resets a user's MFA (a lost phone) while the user's agent runs: the controller ends the
 * user's API sessions, the agent notices at once (its event stream ends), signs in again, finds no
 * authenticator, and tells the user to set it up again, instead of keeping its old "enrolled" state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { MemoryCredentialStore } from '../../src/agent/credentials/memory-credential-store.js';
import { describeNotice } from '../../src/api/prompts.js';
import { createUser, MGMT, type Api } from '../helpers/api.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { adminApi, guardedService, ScriptedPromptPort, totpAt } from '../helpers/agent-setup.js';

let controller: TestController;
let admin: Api;
let identityId: string;
let agent: Agent;
const port = new ScriptedPromptPort();

async function until(condition: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

beforeAll(async () => {
  controller = await startTestController();
  admin = await adminApi(controller.url);
  identityId = await createUser(admin, 'reset-user', 'reset-password', { roleAttributes: ['reset'] });
  await guardedService(admin, 'mfa-guarded', 'reset', { typeId: 'MFA', timeoutSeconds: -1 });
  agent = new Agent({
    controllerUrl: controller.url,
    credentials: new MemoryCredentialStore(),
    prompt: port,
    platform: 'linux',
    reportIntervalMs: 60_000,
  });
  await agent.login({ username: 'reset-user', password: 'reset-password' });
  const enrollment = await agent.mfa.enroll();
  await agent.verifyMfa(await totpAt(enrollment.secret, Date.now()));
});

afterAll(async () => {
  await agent?.stop();
  await controller?.dispose();
});

describe('an MFA reset by an administrator', () => {
  it('is noticed at once by a running agent, which asks the user to set MFA up again', async () => {
    agent.start();
    expect(agent.status().mfa).toBe('enrolled');
    const before = agent.status().apiSessionId;
    // Let the agent's event stream connect before the reset ends it.
    await new Promise((resolve) => setTimeout(resolve, 300));

    const reset = await admin.delete(`${MGMT}/identities/${identityId}/mfa`);
    expect(reset.status).toBe(200);

    // Well before the 60 s report interval: the ended event stream made the agent look.
    await until(() => port.notices.some((n) => n.type === 'mfa-reset'));
    expect(agent.status().mfa).toBe('not-enrolled');
    expect(agent.status().apiSessionId).not.toBe(before);
    expect(describeNotice({ type: 'mfa-reset' })).toBe(
      'Your administrator reset your MFA. Set up your authenticator app again to reach services that need it.',
    );
    await agent.refreshServices();
    expect(agent.services().find((s) => s.name === 'mfa-guarded')?.failing[0]?.explanation).toBe(
      'Set up an authenticator app (MFA) for your account',
    );
  });
});
