/**
 * Agent resilience: the headless agent (`src/agent/cli.ts run`, a child process, reporting every second,
 * verbose log) keeps running while its controller (the CLI, another child) is stopped and later started
 * again on the same data dir and port. The identity has TOTP enrolled and a service whose MFA check prompts
 * on unlock, so prompts can be counted per event. Checked:
 * - no crash: the agent is alive throughout and exits 0 on SIGTERM afterwards;
 * - back-off visible in its log: during the outage it logs retries whose delays grow with the retry number;
 * - data resent: after the restart it sends a full resend of its posture data, which the controller stores;
 * - at most one prompt per event: one for the login, one for an unlock, at most one for an unlock during
 *   the outage, none for the outage or the restart themselves.
 */
import { rmSync } from 'node:fs';
import { generate } from 'otplib';
import { afterAll, describe, expect, it } from 'vitest';
import { Api, CLIENT, MGMT, createUser } from '../helpers/api.js';
import { adminApi, guardedService, machineFacts } from '../helpers/agent-setup.js';
import { ADMIN_PASSWORD, spawnController, tempDir, type ControllerProcess } from '../helpers/controller.js';
import { startAgentRun, type AgentProcess } from '../helpers/reliability-agent-process.js';

const dataDir = tempDir('postern-resilience-');
const env = { POSTERN_ADMIN_PASSWORD: ADMIN_PASSWORD };
const PROMPT = /Authenticator code \(or a recovery code/g;
let controller: ControllerProcess | undefined;
let agent: AgentProcess | undefined;

afterAll(async () => {
  await agent?.stop('SIGKILL');
  await controller?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const prompts = (text: string) => (text.match(PROMPT) ?? []).length;

/** Enrolls TOTP for the user and returns its recovery codes (the test answers prompts with them). */
async function enroll(url: string, username: string, password: string): Promise<string[]> {
  const api = new Api(url);
  expect((await api.login(username, password, CLIENT)).status).toBe(200);
  expect((await api.post(`${CLIENT}/current-identity/mfa`, {})).status).toBe(201);
  const status = (await api.get(`${CLIENT}/current-identity/mfa`)).body.data;
  const secret = new URL(status.provisioningUrl as string).searchParams.get('secret')!;
  const code = await generate({ secret, epoch: Math.floor(Date.now() / 1000) });
  expect((await api.post(`${CLIENT}/current-identity/mfa/verify`, { code })).status).toBe(200);
  return status.recoveryCodes as string[];
}

/** Retry delays logged after `from`, grouped by retry number: `... retry 2 in 431 ms`. */
function retryDelays(text: string): Map<number, number[]> {
  const byRetry = new Map<number, number[]>();
  for (const m of text.matchAll(/retry (\d+) in (\d+) ms/g)) {
    const list = byRetry.get(Number(m[1])) ?? [];
    list.push(Number(m[2]));
    byRetry.set(Number(m[1]), list);
  }
  return byRetry;
}

describe.runIf(process.platform === 'linux')('the agent across a controller outage', () => {
  it('survives, backs off, resends and prompts once per event', async () => {
    controller = await spawnController(['--data-dir', dataDir, '--port', '0', '--log-level', 'warn'], env);
    const url = controller.url;
    const port = new URL(url).port;
    const admin = await adminApi(url);
    const identityId = await createUser(admin, 'resilient-user', 'resilient-password', {
      roleAttributes: ['resilient'],
    });
    const facts = machineFacts();
    await guardedService(admin, 'res-os', 'resilient', {
      typeId: 'OS',
      operatingSystems: [{ type: 'Linux', versions: [facts.osRange] }],
    });
    await guardedService(admin, 'res-mac', 'resilient', { typeId: 'MAC', macAddresses: [facts.mac] });
    await guardedService(admin, 'res-mfa', 'resilient', {
      typeId: 'MFA',
      promptOnUnlock: true,
      timeoutSeconds: -1,
    });
    const recoveryCodes = await enroll(url, 'resilient-user', 'resilient-password');

    agent = startAgentRun({
      controllerUrl: url,
      username: 'resilient-user',
      password: 'resilient-password',
      intervalSeconds: 1,
      verbose: true,
    });
    // Event 1, the login: one prompt, answered with a recovery code.
    await agent.waitFor(PROMPT);
    agent.type(recoveryCodes[0]!);
    await agent.waitFor(/sent \d+ posture response/);
    expect(prompts(agent.output())).toBe(1);

    // Event 2, an unlock while the controller is up: one prompt, dismissed.
    let mark = agent.output().length;
    agent.type('unlock');
    await agent.waitFor(PROMPT, 30_000, mark);
    agent.type('');
    expect(prompts(agent.output().slice(mark))).toBe(1);

    // The outage: the controller stops; the agent keeps trying with growing delays.
    mark = agent.output().length;
    expect(await controller.stop()).toBe(0);
    controller = undefined;
    await agent.waitFor(/posture report failed/, 30_000, mark);
    await agent.waitFor(/retry 3 in \d+ ms/, 30_000, mark);
    // Event 3, an unlock during the outage. Its prompt may only come once the service list can be read again.
    const unlockMark = agent.output().length;
    agent.type('unlock');
    await agent.waitFor(/could not send the unlock event/, 30_000, unlockMark);
    const outage = agent.output().slice(mark);
    const delays = retryDelays(outage);
    const mean = (n: number) =>
      (delays.get(n) ?? []).reduce((a, b) => a + b, 0) / (delays.get(n)?.length || 1);
    expect(delays.get(1)?.length, outage).toBeGreaterThan(0);
    expect(mean(2)).toBeGreaterThan(mean(1));
    expect(mean(3)).toBeGreaterThan(mean(2));
    expect(agent.child.exitCode).toBeNull();

    // The restart on the same data dir and port: everything is sent again.
    const restartMark = agent.output().length;
    const restartedAt = Date.now();
    controller = await spawnController(['--data-dir', dataDir, '--port', port, '--log-level', 'warn'], env);
    await agent.waitFor(/sent \d+ posture response\(s\) \(full resend\)/, 60_000, restartMark);
    const data = (await (await adminApi(url)).get(`${MGMT}/identities/${identityId}/posture-data`)).body.data;
    expect(Date.parse(data.os.lastUpdatedAt)).toBeGreaterThanOrEqual(restartedAt - 1_000);
    expect(Date.parse(data.mac.lastUpdatedAt)).toBeGreaterThanOrEqual(restartedAt - 1_000);
    // A few more one-second report cycles, so a prompt the outage or the restart raised would show by now.
    await new Promise((resolve) => setTimeout(resolve, 3_000));

    // Three events, so at most three prompts: one for the login, at most one for each unlock.
    const all = agent.output();
    expect((all.match(/Your account needs an authenticator code to finish signing in/g) ?? []).length).toBe(
      1,
    );
    expect((all.slice(unlockMark).match(/This device was unlocked/g) ?? []).length).toBeLessThanOrEqual(1);
    expect(prompts(all.slice(unlockMark)), 'prompts since the outage unlock').toBeLessThanOrEqual(1);
    expect(prompts(all)).toBeLessThanOrEqual(3);

    expect(agent.child.exitCode).toBeNull();
    expect(await agent.stop('SIGTERM'), agent.output()).toBe(0);
    agent = undefined;
  }, 180_000);
});
