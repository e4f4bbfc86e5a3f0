/**
 * Each reason a service is refused, from the real controller to the words the real agent shows: the
 * controller's client `GET /services` gives a code and the facts the user needs for this device (never the
 * approved MAC addresses, domains or hashes), and the agent turns them into the fix. Before the running agent's first
 * report a service reads "checking", never a failure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { MemoryCredentialStore } from '../../src/agent/credentials/memory-credential-store.js';
import type { ServiceAccessView } from '../../src/api/service-access.js';
import type { ServiceDetail } from '../../src/api/services.js';
import { createUser, MGMT, type Api } from '../helpers/api.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { adminApi, guardedService, machineFacts, ScriptedPromptPort } from '../helpers/agent-setup.js';

const ROLE = 'reason-users';
const APPROVED_MAC = 'AA-BB-CC-DD-EE-0F';
const APPROVED_HASH = 'ab'.repeat(32);
const REMEDIATION = 'Plug into the office dock; help: https://it.example/dock';
const REQUIRED_DOMAIN = 'CORP-HQ-DIRECTORY';
const DOMAIN_REMEDIATION = 'Ask the service desk to join this laptop to the company directory';
const facts = machineFacts();
const [kernelMajor] = facts.osRange.replace('>=', '').split('.');
const MISSING = '/opt/postern-test/bin/edr-sensor';
const OTHER_MISSING = '/opt/postern-test/bin/backup-agent';

let controller: TestController;
let admin: Api;
let agent: Agent;

const CHECKS: Record<string, Record<string, unknown>> = {
  'wrong-hash': {
    typeId: 'PROCESS',
    process: { osType: 'Linux', path: facts.processPath, hashes: [APPROVED_HASH] },
  },
  stopped: { typeId: 'PROCESS', process: { osType: 'Linux', path: MISSING } },
  'windows-only': { typeId: 'OS', operatingSystems: [{ type: 'Windows', versions: ['>=10.0.19041'] }] },
  'newer-linux': {
    typeId: 'OS',
    operatingSystems: [{ type: 'Linux', versions: [`>=${Number(kernelMajor) + 50}.0.0`] }],
  },
  'any-sensor': {
    typeId: 'PROCESS_MULTI',
    semantic: 'AnyOf',
    processes: [
      { osType: 'Linux', path: MISSING },
      { osType: 'Linux', path: OTHER_MISSING },
    ],
  },
  'office-nic': { typeId: 'MAC', macAddresses: [APPROVED_MAC], remediation: REMEDIATION },
  'corp-domain': { typeId: 'DOMAIN', domains: [REQUIRED_DOMAIN], remediation: DOMAIN_REMEDIATION },
  'windows-edr': { typeId: 'PROCESS', process: { osType: 'Windows', path: 'C:\\EDR\\edr.exe' } },
};

const view = (name: string): ServiceAccessView | undefined => agent.services().find((s) => s.name === name);
const advice = (name: string) => view(name)?.failing.map((f) => f.explanation);

beforeAll(async () => {
  controller = await startTestController();
  admin = await adminApi(controller.url);
  await createUser(admin, 'reason-user', 'reason-password', { roleAttributes: [ROLE] });
  for (const [name, check] of Object.entries(CHECKS)) await guardedService(admin, name, ROLE, check);
  agent = new Agent({
    controllerUrl: controller.url,
    credentials: new MemoryCredentialStore(),
    prompt: new ScriptedPromptPort(),
    platform: 'linux',
  });
  await agent.login({ username: 'reason-user', password: 'reason-password' });
});

afterAll(async () => {
  await agent?.stop();
  await controller?.dispose();
});

describe.runIf(process.platform === 'linux')('why a service is refused, in the user’s words', () => {
  it('reads "checking" while the running agent has not reported, and NO_DATA_YET on the wire', async () => {
    const services = (await agent.api.listServices()) as ServiceDetail[];
    const os = services.find((s) => s.name === 'windows-only')!.postureQueries[0]!.postureQueries[0]!;
    expect(os.reason).toEqual({ code: 'NO_DATA_YET', missing: 'OS' });

    let firstSeen: ServiceAccessView[] | undefined;
    const off = agent.serviceChanges.on((views) => (firstSeen ??= views));
    const reported = new Promise<void>((resolve) => {
      const stop = agent.reporter.reports.on(() => (stop(), resolve()));
    });
    agent.start();
    expect(agent.services().find((s) => s.name === 'windows-only')?.access).toBe('checking');
    expect(agent.services().every((s) => s.failing.length === 0)).toBe(true);
    await reported;
    off();
    await agent.refreshServices();
    expect(view('windows-only')?.access).toBe('blocked');
    expect(
      firstSeen?.some((s) => s.access === 'blocked' && s.failing.some((f) => f.code === 'NO_DATA_YET')),
    ).toBe(false);
  });

  it('a running binary with an unapproved hash is to be reinstalled, not started', () => {
    expect(view('wrong-hash')?.failing[0]?.code).toBe('PROCESS_HASH_NOT_APPROVED');
    const name = facts.processPath.split('/').at(-1);
    expect(advice('wrong-hash')).toEqual([
      `${name} is running but is not an approved build: install the approved version at ${facts.processPath}`,
    ]);
  });

  it('a binary that is not running is to be started', () => {
    expect(view('stopped')?.failing[0]?.code).toBe('PROCESS_NOT_RUNNING');
    expect(advice('stopped')).toEqual([`Start edr-sensor (${MISSING})`]);
  });

  it('a Windows-only check on Linux says Windows is needed, not "update Linux"', () => {
    expect(view('windows-only')?.failing[0]?.code).toBe('OS_TYPE_NOT_ALLOWED');
    expect(advice('windows-only')).toEqual([
      'This service needs Windows 10.0.19041 or later; this device runs Linux',
    ]);
    expect(view('windows-edr')?.failing[0]?.code).toBe('OS_TYPE_NOT_ALLOWED');
    expect(advice('windows-edr')).toEqual(['This service needs Windows; this device runs Linux']);
  });

  it('an OS too old names the version required and the one running', () => {
    expect(view('newer-linux')?.failing[0]?.code).toBe('OS_VERSION_OUT_OF_RANGE');
    expect(advice('newer-linux')?.[0]).toMatch(
      new RegExp(
        `^Update Linux to ${Number(kernelMajor) + 50}\\.0 or later \\(this device runs \\d+\\.\\d+\\.\\d+\\)$`,
      ),
    );
  });

  it('an AnyOf process check reads "one of"', () => {
    expect(advice('any-sensor')).toEqual([
      `Any one of these: Start edr-sensor (${MISSING}); or Start backup-agent (${OTHER_MISSING})`,
    ]);
  });

  it("a MAC check says which adapter to use in general and shows the administrator's remediation", () => {
    expect(view('office-nic')?.failing).toEqual([
      expect.objectContaining({
        code: 'MAC_NOT_ALLOWED',
        explanation: 'Connect from an allowed network adapter',
        remediation: REMEDIATION,
      }),
    ]);
  });

  it("a domain check says to join the organisation's domain, with the remediation, never its name", () => {
    expect(view('corp-domain')?.failing).toEqual([
      expect.objectContaining({
        code: 'DOMAIN_MISMATCH',
        explanation: "Join your organisation's Windows domain",
        remediation: DOMAIN_REMEDIATION,
      }),
    ]);
  });

  it('never tells the device the approved MAC addresses, domains or hashes', async () => {
    const wire = JSON.stringify(await agent.api.listServices());
    expect(wire).not.toMatch(/aabbccddee0f|AA-BB-CC-DD-EE-0F/i);
    expect(wire).not.toContain(APPROVED_HASH);
    expect(wire.toLowerCase()).not.toContain(REQUIRED_DOMAIN.toLowerCase());
    // The OS range stays: the user needs it to update.
    expect(wire).toContain('10.0.19041');
  });

  it("the administrator's access explanation names the required domain", async () => {
    const identityId = agent.status().identityId;
    const service = (await agent.api.listServices()).find((s) => s.name === 'corp-domain')!;
    const explained = await admin.get(`${MGMT}/identities/${identityId}/services/${service.id}/access`);
    expect(explained.status).toBe(200);
    expect(JSON.stringify(explained.body)).toContain(REQUIRED_DOMAIN);
    await agent.api.createSession(service.id).catch(() => undefined);
    const failed = await admin.get(`${MGMT}/identities/${identityId}/failed-service-requests`);
    expect(JSON.stringify(failed.body)).toContain(REQUIRED_DOMAIN);
  });

  it('the failure record carries the same code for the administrator', async () => {
    const service = (await agent.api.listServices()).find((s) => s.name === 'wrong-hash')!;
    await agent.api.createSession(service.id).catch(() => undefined);
    const identityId = agent.status().identityId;
    const failed = await admin.get(`${MGMT}/identities/${identityId}/failed-service-requests`);
    const checks = (failed.body.data as { policyFailures: { checks: { code?: string }[] }[] }[]).flatMap(
      (r) => r.policyFailures.flatMap((p) => p.checks),
    );
    expect(checks.map((c) => c.code)).toContain('PROCESS_HASH_NOT_APPROVED');
  });
});
