/**
 * References users can quote (docs/AUDIT.md), on real parts and whichever store the project runs: a posture
 * failure leaves an `access.refused` event; the agent (its core with the tunnel on, and the headless CLI as a
 * child process) shows the service refused with `ref XXXX-XX`; the console's query by that reference returns
 * the event with the failing check's actual and expected values. A refused session request is on the trail
 * too, its reference in the 409's `error.cause.reference`, at most once a minute per identity and service.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { MemoryCredentialStore } from '../../src/agent/credentials/memory-credential-store.js';
import type { TunnelEvent } from '../../src/agent/tunnel/tunnel-events.js';
import { CLIENT, MGMT, createUser } from '../helpers/api.js';
import { ScriptedPromptPort, machineFacts } from '../helpers/agent-setup.js';
import { tempDir } from '../helpers/controller.js';
import {
  create,
  domainGuarded,
  signedInUser,
  startWorld,
  stopWorld,
  waitFor,
  type World,
} from '../helpers/data-plane-world.js';
import { unique } from '../helpers/posture-world.js';
import { REQUEST_REFUSAL_WINDOW_MS, recordRefusedRequest } from '../../controller/audit/refused-requests.js';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'agent', 'cli.ts');
const bare = (mac: string) => mac.replace(/[:-]/g, '').toLowerCase();
const REFERENCE = /^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{2}$/;

interface WireEvent {
  id: string;
  type: string;
  identityId: string | null;
  serviceId: string | null;
  reference: string;
  details: Record<string, any>;
}

describe('refusal references', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(async () => {
    await stopWorld(world);
  });

  const byReference = async (reference: string): Promise<WireEvent[]> => {
    const filter = encodeURIComponent(`reference = "${reference}"`);
    const res = await world.admin.get(`${MGMT}/audit-events?filter=${filter}`);
    expect(res.status).toBe(200);
    return res.body.data as WireEvent[];
  };
  const eventsOf = async (identityId: string, type: string): Promise<WireEvent[]> => {
    const filter = encodeURIComponent(`identityId = "${identityId}" and type = "${type}"`);
    const res = await world.admin.get(`${MGMT}/audit-events?limit=500&filter=${filter}`);
    expect(res.status).toBe(200);
    return res.body.data as WireEvent[];
  };

  it('a refused session request is recorded once a minute per identity and service, its reference in error.cause', async () => {
    const tag = unique('bound');
    const { checkId, serviceId } = await domainGuarded(world.admin, tag);
    const user = await signedInUser(world, [`${tag}-user`]);
    const report = await user.api.post(`${CLIENT}/posture-response`, {
      id: checkId,
      typeId: 'DOMAIN',
      domain: 'elsewhere.example',
    });
    expect(report.status).toBe(201);

    // A retrying agent: every refusal answers the same reference and the trail holds one event for them all.
    const references: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await user.api.post(`${CLIENT}/sessions`, { serviceId, type: 'Dial' });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('INVALID_POSTURE');
      // OpenZiti's cause is kept as it was; the reference rides beside it.
      expect(res.body.error.cause.data).toBeTypeOf('object');
      expect(res.body.error.cause.reference).toMatch(REFERENCE);
      references.push(res.body.error.cause.reference as string);
    }
    expect(new Set(references).size).toBe(1);
    const recorded = await eventsOf(user.id, 'access.request-refused');
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.reference).toBe(references[0]);
    expect(recorded[0]!.serviceId).toBe(serviceId);
    expect(recorded[0]!.details).toMatchObject({
      sessionType: 'Dial',
      apiSessionId: user.apiSessionId,
      failingChecks: [
        expect.objectContaining({
          postureCheckId: checkId,
          actualValue: 'elsewhere.example',
          expectedValue: ['corp.example'],
        }),
      ],
    });
    expect(await byReference(references[0]!)).toEqual([expect.objectContaining({ id: recorded[0]!.id })]);

    // Past the window a refusal is recorded again, with a new reference; within the new window, that one.
    const { ctx } = world.bundle.controller;
    const identity = (await ctx.store.identities.get(user.id))!;
    const service = (await ctx.store.services.get(serviceId))!;
    const refusal = { type: 'Dial' as const, apiSessionId: user.apiSessionId, decision: { outcomes: [] } };
    const later = new Date(Date.now() + REQUEST_REFUSAL_WINDOW_MS + 1000);
    const next = await ctx.store.transaction(() =>
      recordRefusedRequest(ctx, identity, service, refusal, later),
    );
    expect(next).toMatch(REFERENCE);
    expect(next).not.toBe(references[0]);
    const again = await ctx.store.transaction(() =>
      recordRefusedRequest(ctx, identity, service, refusal, new Date(later.getTime() + 30_000)),
    );
    expect(again).toBe(next);
    expect(await eventsOf(user.id, 'access.request-refused')).toHaveLength(2);

    // Another service of the same identity is bounded on its own.
    const other = await create(world.admin, 'services', { name: `${tag}-other` });
    const otherService = (await ctx.store.services.get(other))!;
    const separate = await ctx.store.transaction(() =>
      recordRefusedRequest(ctx, identity, otherService, refusal, later),
    );
    expect(separate).not.toBe(next);
  });

  it('the client service list names the access.refused event on a refused service, and nothing on a granted one', async () => {
    const tag = unique('listed');
    const { checkId, serviceId } = await domainGuarded(world.admin, tag);
    const user = await signedInUser(world, [`${tag}-user`]);
    const listed = async () => {
      const res = await user.api.get(
        `${CLIENT}/services?filter=${encodeURIComponent(`id = "${serviceId}"`)}`,
      );
      expect(res.status).toBe(200);
      return res.body.data[0] as { refusalReference?: string };
    };
    const report = (domain: string) =>
      user.api.post(`${CLIENT}/posture-response`, { id: checkId, typeId: 'DOMAIN', domain });

    expect((await report('corp.example')).status).toBe(201);
    expect((await listed()).refusalReference).toBeUndefined();
    expect((await report('elsewhere.example')).status).toBe(201);
    const [refused] = await eventsOf(user.id, 'access.refused');
    expect((await listed()).refusalReference).toBe(refused!.reference);
    const one = await user.api.get(`${CLIENT}/services/${serviceId}`);
    expect(one.body.data.refusalReference).toBe(refused!.reference);
    expect((await report('corp.example')).status).toBe(201);
    expect((await listed()).refusalReference).toBeUndefined();
  });

  it('a device refused from its first report has an access.refused event to quote; a sign-in awaiting its first report has none', async () => {
    const tag = unique('fromstart');
    const { checkId, serviceId } = await domainGuarded(world.admin, tag);
    const user = await signedInUser(world, [`${tag}-user`]);
    const listed = async () =>
      (await user.api.get(`${CLIENT}/services/${serviceId}`)).body.data as { refusalReference?: string };
    // Signed in, nothing reported yet: waiting for data is no refusal to record (it would pair with a grant at
    // every sign-in).
    expect((await listed()).refusalReference).toBeUndefined();
    expect(await eventsOf(user.id, 'access.refused')).toEqual([]);
    const report = await user.api.post(`${CLIENT}/posture-response`, {
      id: checkId,
      typeId: 'DOMAIN',
      domain: 'elsewhere.example',
    });
    expect(report.status).toBe(201);
    const [refused, ...more] = await eventsOf(user.id, 'access.refused');
    expect(more).toEqual([]);
    expect(refused!.details.failingChecks).toEqual([
      expect.objectContaining({ actualValue: 'elsewhere.example', expectedValue: ['corp.example'] }),
    ]);
    expect((await listed()).refusalReference).toBe(refused!.reference);
  });
});

function cli(
  configDir: string,
  password: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, '--credential-store', 'memory', '--config-dir', configDir, ...args],
      { env: { ...process.env, POSTERN_PASSWORD: password }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdin.end();
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('a posture failure, from the agent to the console', () => {
  let world: World;
  let web: Server;
  let agent: Agent;
  let checkId: string;
  let serviceId: string;
  const events: TunnelEvent[] = [];
  const facts = machineFacts();
  const agentDir = tempDir('postern-refref-');
  const username = unique('dana');
  const password = 'dana-password-1';
  const serviceName = unique('wiki');

  beforeAll(async () => {
    world = await startWorld();
    web = createServer((_req, res) => res.end('hello'));
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    const port = (web.address() as { port: number }).port;
    const intercept = await create(world.admin, 'configs', {
      name: `${serviceName}-intercept`,
      configTypeId: 'intercept.v1',
      data: {
        protocols: ['tcp'],
        addresses: [`${serviceName}.internal`],
        portRanges: [{ low: 80, high: 80 }],
      },
    });
    const host = await create(world.admin, 'configs', {
      name: `${serviceName}-host`,
      configTypeId: 'host.v1',
      data: { protocol: 'tcp', address: '127.0.0.1', port },
    });
    serviceId = await create(world.admin, 'services', { name: serviceName, configs: [intercept, host] });
    checkId = await create(world.admin, 'posture-checks', {
      name: `${serviceName}-mac`,
      typeId: 'MAC',
      macAddresses: [facts.mac],
    });
    await create(world.admin, 'service-policies', {
      name: `${serviceName}-dial`,
      type: 'Dial',
      semantic: 'AllOf',
      identityRoles: [`#${serviceName}-users`],
      serviceRoles: [`@${serviceId}`],
      postureCheckRoles: [`@${checkId}`],
    });
    await createUser(world.admin, username, password, { roleAttributes: [`${serviceName}-users`] });
    agent = new Agent({
      controllerUrl: world.url,
      credentials: new MemoryCredentialStore(),
      prompt: new ScriptedPromptPort(),
      reportIntervalMs: 60_000,
      tunnel: { portsFile: join(agentDir, 'tunnel-ports.json'), socksPort: 0 },
    });
    agent.tunnel!.events.on('event', (e) => events.push(e));
    await agent.login({ username, password }, false);
    agent.start();
    await agent.reportNow();
    await waitFor(
      () => agent.tunnel!.localAddresses().get(serviceName)?.[0] !== undefined,
      10_000,
      'a local listener for the service',
    );
  });

  afterAll(async () => {
    await agent?.stop();
    await new Promise<void>((resolve) => web.close(() => resolve()));
    await stopWorld(world);
    rmSync(agentDir, { recursive: true, force: true });
  });

  it('the agent shows the service refused with a reference that finds the access.refused event with actual vs expected', async () => {
    expect(agent.services().find((s) => s.name === serviceName)).toMatchObject({
      access: 'granted',
      reference: null,
    });
    // The device is no longer on an approved network card: the check now asks for another MAC.
    const wanted = '02:00:00:00:00:01';
    expect(
      (await world.admin.patch(`${MGMT}/posture-checks/${checkId}`, { macAddresses: [wanted] })).status,
    ).toBe(200);
    await waitFor(
      () => agent.services().find((s) => s.name === serviceName)?.reference != null,
      15_000,
      'the agent to list the service refused with a reference',
    );
    const view = agent.services().find((s) => s.name === serviceName)!;
    expect(view.access).toBe('blocked');
    const reference = view.reference!;
    expect(reference).toMatch(REFERENCE);

    // The console's query by what the user quotes.
    const filter = encodeURIComponent(`reference = "${reference}"`);
    const found = await world.admin.get(`${MGMT}/audit-events?filter=${filter}`);
    expect(found.status).toBe(200);
    expect(found.body.data).toHaveLength(1);
    const event = found.body.data[0] as WireEvent;
    expect(event).toMatchObject({ type: 'access.refused', serviceId, reference });
    expect(event.details.failingChecks).toEqual([
      expect.objectContaining({
        postureCheckId: checkId,
        typeId: 'MAC',
        // MAC values as the check compares them: lower case, no separators.
        expectedValue: [bare(wanted)],
        actualValue: expect.arrayContaining([bare(facts.mac)]),
      }),
    ]);

    // The headless CLI, signed in as the same user: `status` and `services` name it, `--json` carries it.
    const configDir = tempDir('postern-refref-cli-');
    try {
      expect((await cli(configDir, password, ['--controller', world.url, 'login', username])).code).toBe(0);
      const status = await cli(configDir, password, ['status']);
      expect(status.stdout).toContain(`  ${serviceName}: blocked (ref ${reference})`);
      const json = JSON.parse((await cli(configDir, password, ['status', '--json'])).stdout);
      expect(json.refused).toEqual([{ service: serviceName, access: 'blocked', reference }]);
      const table = await cli(configDir, password, ['services']);
      expect(table.stdout).toContain(`ref ${reference} (quote it to your administrator)`);
    } finally {
      rmSync(configDir, { recursive: true, force: true });
    }

    // A connection through the tunnel now: refused with the refused request's own reference, on the page and
    // in the event, and that reference finds the access.request-refused event.
    const address = agent.tunnel!.localAddresses().get(serviceName)![0]!;
    const page = await fetch(`http://${address}/`, { headers: { connection: 'close' } });
    expect(page.status).toBe(403);
    const body = await page.text();
    const quoted = /Quote <strong>ref ([0-9A-Z]{4}-[0-9A-Z]{2})<\/strong>/.exec(body)?.[1];
    expect(quoted).toMatch(REFERENCE);
    await waitFor(
      () => events.some((e) => e.type === 'refused' && e.reference === quoted),
      10_000,
      'the tunnel refusal event with the reference',
    );
    const [requestRefused] = (
      await world.admin.get(`${MGMT}/audit-events?filter=${encodeURIComponent(`reference = "${quoted}"`)}`)
    ).body.data as WireEvent[];
    expect(requestRefused).toMatchObject({ type: 'access.request-refused', serviceId });
  }, 120_000);
});
