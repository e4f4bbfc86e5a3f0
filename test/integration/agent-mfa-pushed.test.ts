/**
 * MFA set up or reset elsewhere while the user's agent runs: another client of the same user enrolls and
 * verifies an authenticator through the API, then an administrator resets it. The controller pushes
 * `mfa-changed` to the identity's event streams and the running agent re-reads its MFA state and services
 * at once (no restart, no refresh call): after the set-up it owes a code, after the reset it asks for an
 * authenticator app to be set up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { MemoryCredentialStore } from '../../src/agent/credentials/memory-credential-store.js';
import { Api, CLIENT, createUser, MGMT } from '../helpers/api.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { adminApi, guardedService, ScriptedPromptPort, totpAt } from '../helpers/agent-setup.js';
import { startEnrollment } from '../helpers/mfa.js';

let controller: TestController;
let admin: Api;
let identityId: string;
let agent: Agent;
// The user dismisses every prompt: the agent must still show that a code is owed.
const port = new ScriptedPromptPort(() => null);

/** Generous: the machine is shared; the push arrives in milliseconds, the 60 s report interval never does. */
async function until(condition: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting; status ${JSON.stringify(agent.status())}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

beforeAll(async () => {
  controller = await startTestController();
  admin = await adminApi(controller.url);
  identityId = await createUser(admin, 'pushed-user', 'pushed-password', { roleAttributes: ['pushed'] });
  await guardedService(admin, 'pushed-guarded', 'pushed', { typeId: 'MFA', timeoutSeconds: -1 });
  agent = new Agent({
    controllerUrl: controller.url,
    credentials: new MemoryCredentialStore(),
    prompt: port,
    platform: 'linux',
    reportIntervalMs: 60_000,
  });
  await agent.login({ username: 'pushed-user', password: 'pushed-password' });
});

afterAll(async () => {
  await agent?.stop();
  await controller?.dispose();
});

let streamsBefore = 0;
/** The agent's event stream is open: each open stream listens for its API session's end. */
function agentListening(): boolean {
  return controller.ctx.events.listenerCount('apiSession.deleted') > streamsBefore;
}

function guardedAdvice(): string | undefined {
  return agent.services().find((s) => s.name === 'pushed-guarded')?.failing[0]?.explanation;
}

describe('MFA changed elsewhere while the agent runs', () => {
  it('after set-up on another client the agent owes a code; after a reset it asks for set-up again', async () => {
    streamsBefore = controller.ctx.events.listenerCount('apiSession.deleted');
    agent.start();
    expect(agent.status()).toMatchObject({ state: 'active', mfa: 'not-enrolled' });
    await until(() => guardedAdvice() === 'Set up an authenticator app (MFA) for your account');
    await until(agentListening);

    const other = new Api(controller.url);
    expect((await other.login('pushed-user', 'pushed-password')).status).toBe(200);
    const { app } = await startEnrollment(other);
    const verified = await other.post(`${CLIENT}/current-identity/mfa/verify`, {
      code: await totpAt(app.secret, Date.now()),
    });
    expect(verified.status).toBe(200);

    await until(() => agent.status().mfa === 'enrolled');
    await until(() => agent.status().state === 'needs-totp');
    expect(guardedAdvice()).not.toBe('Set up an authenticator app (MFA) for your account');

    // The set-up ended the agent's API session; its stream reconnects on the new, code-owing one. Not
    // asserted here: what matters is that the agent hears the reset, checked below.
    await until(agentListening, 10_000).catch(() => undefined);
    const reset = await admin.delete(`${MGMT}/identities/${identityId}/mfa`);
    expect(reset.status).toBe(200);
    await until(() => agent.status().mfa === 'not-enrolled' && agent.status().state === 'active');
    await until(() => guardedAdvice() === 'Set up an authenticator app (MFA) for your account');
  });
});
