/**
 * AGENT_VERSION checks read the agent's version from the `sdkInfo` it signs in with (OpenZiti's field): the
 * real agent signs in to the real controller, and the identity shows Postern's package version there.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { MemoryCredentialStore } from '../../src/agent/credentials/memory-credential-store.js';
import { createUser, MGMT, type Api } from '../helpers/api.js';
import { adminApi, ScriptedPromptPort } from '../helpers/agent-setup.js';
import { startTestController, type TestController } from '../helpers/controller.js';

const packageVersion = (
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

let controller: TestController;
let admin: Api;
let agent: Agent;

beforeAll(async () => {
  controller = await startTestController();
  admin = await adminApi(controller.url);
});

afterAll(async () => {
  await agent?.stop();
  await controller?.dispose();
});

describe('the agent signs in with its version', () => {
  it("sends sdkInfo.version = the package's version, which the controller keeps for the identity", async () => {
    const identityId = await createUser(admin, 'versioned-user', 'versioned-password');
    agent = new Agent({
      controllerUrl: controller.url,
      credentials: new MemoryCredentialStore(),
      prompt: new ScriptedPromptPort(),
      platform: 'linux',
    });
    await agent.login({ username: 'versioned-user', password: 'versioned-password' });
    const identity = await admin.get(`${MGMT}/identities/${identityId}`);
    expect(identity.status).toBe(200);
    expect(packageVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(identity.body.data.sdkInfo).toMatchObject({ type: 'postern-agent', version: packageVersion });
  });
});
