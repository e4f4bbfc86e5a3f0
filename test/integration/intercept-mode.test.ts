/**
 * Intercept mode end to end, in network namespaces (test/helpers/netns-world.ts): the agent runs as root in a
 * client namespace that has no route to the service's network, and unmodified programs there reach the
 * service at its real name: curl verifies the service's own certificate for `wiki.corp`. A name that is not
 * intercepted resolves as before. A posture failure cuts the open connection and the next one fails at once,
 * the reason said by the agent. A kill -9 leaves the system changed until the next start, which undoes it; a
 * normal stop leaves no route, rule, link or resolver change behind.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MGMT } from '../helpers/api.js';
import { create } from '../helpers/data-plane-world.js';
import {
  ECHO_PORT,
  OTHER_ADDRESS,
  OTHER_NAME,
  SVC_ADDRESS,
  WIKI_BODY,
  WIKI_NAME,
  netnsUnavailable,
  startNetnsWorld,
  type NetnsWorld,
} from '../helpers/netns-world.js';
import type { AgentProcess } from '../helpers/reliability-agent-process.js';

const unavailable = netnsUnavailable();
if (unavailable) console.warn(`intercept-mode.test.ts skipped: ${unavailable}`);

const ECHO_NAME = 'echo.corp';
/** Holds one connection to echo.corp open, writing to it, and says when it was closed. */
const HOLD_OPEN = `
const s = require('net').connect(${ECHO_PORT}, '${ECHO_NAME}', () => {
  console.log('connected');
  setInterval(() => s.write('x'), 100);
});
s.on('data', () => {});
s.on('error', (e) => console.log('error ' + e.code));
s.on('close', () => { console.log('closed'); process.exit(0); });
`;

describe.skipIf(unavailable !== null)('intercept mode (Linux, network namespaces)', () => {
  let world: NetnsWorld;
  let agent: AgentProcess | undefined;
  let before: string;
  let checkId: string;
  let mac: string;

  /** Everything of the client namespace's that intercept mode may change. */
  async function systemState(): Promise<string> {
    const parts = await Promise.all([
      world.runInClient('ip', ['-o', 'link']),
      world.runInClient('ip', ['-o', 'addr']),
      world.runInClient('ip', ['route', 'show', 'table', 'all']),
      world.runInClient('ip', ['-6', 'route', 'show', 'table', 'all']),
      world.runInClient('nft', ['list', 'ruleset']),
      world.runInClient('cat', ['/etc/resolv.conf']),
    ]);
    // Link counters and the order of the lines are not changes.
    return parts
      .map((p) =>
        p.stdout
          .split('\n')
          .map((l) => l.replace(/\s+/g, ' ').trim())
          .sort()
          .join('\n'),
      )
      .join('\n---\n');
  }

  const curlWiki = (maxTime = 60) =>
    world.runInClient(
      'curl',
      [
        '--silent',
        '--show-error',
        '--max-time',
        String(maxTime),
        '--cacert',
        world.caFile,
        `https://${WIKI_NAME}/`,
      ],
      (maxTime + 30) * 1000,
    );

  beforeAll(async () => {
    world = await startNetnsWorld();
    await world.publishService(
      'echo',
      { protocols: ['tcp'], addresses: [ECHO_NAME], portRanges: [{ low: ECHO_PORT, high: ECHO_PORT }] },
      { protocol: 'tcp', address: SVC_ADDRESS, port: ECHO_PORT },
    );
    mac = (await world.runInClient('cat', ['/sys/class/net/veth0/address'])).stdout.trim();
    checkId = await create(world.admin, 'posture-checks', {
      name: 'netns-mac',
      typeId: 'MAC',
      macAddresses: [mac],
    });
    const patched = await world.admin.patch(`${MGMT}/service-policies/${world.policyId}`, {
      postureCheckRoles: [`@${checkId}`],
    });
    expect(patched.status).toBe(200);
    before = await systemState();
  }, 900_000);

  afterAll(async () => {
    await agent?.stop();
    await world?.stop();
  }, 180_000);

  it('prints each intercepted address, and curl reaches https://wiki.corp/ by name with its real certificate', async () => {
    agent = world.startAgent(['--intercept', '--interval', '2']);
    await agent.waitFor(new RegExp(`intercept wiki: ${WIKI_NAME}:443`), 120_000);
    await agent.waitFor(new RegExp(`intercept echo: ${ECHO_NAME}:${ECHO_PORT}`), 60_000);
    expect(agent.output()).toMatch(/mode: intercept/);
    // The MAC check passes once the agent has reported; until then the controller may still refuse.
    let body = '';
    for (let attempt = 0; attempt < 30 && body !== WIKI_BODY; attempt++) {
      const curl = await curlWiki(30);
      body = curl.stdout;
      if (body !== WIKI_BODY) await new Promise((r) => setTimeout(r, 2000));
    }
    expect(body).toBe(WIKI_BODY);
  }, 600_000);

  it('resolves a name that is not intercepted as before, through the system resolver', async () => {
    const asked = world.dns.queries.length;
    const lookup = await world.runInClient('getent', ['hosts', OTHER_NAME]);
    expect(lookup.stdout).toContain(OTHER_ADDRESS);
    expect(world.dns.queries.length).toBeGreaterThan(asked);
    // and an intercepted name is answered by the agent, never asked of the system resolver
    const seen = world.dns.queries.length;
    const wiki = await world.runInClient('getent', ['ahostsv4', WIKI_NAME]);
    expect(wiki.stdout).toMatch(/^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\./m);
    expect(world.dns.queries.slice(seen).some((q) => String(q).includes(WIKI_NAME))).toBe(false);
  }, 120_000);

  it('a posture failure cuts the open connection, and the next attempt fails at once with the reason', async () => {
    const holder = world.spawnInClient(process.execPath, ['-e', HOLD_OPEN]);
    let said = '';
    holder.stdout!.on('data', (chunk: Buffer) => (said += chunk.toString()));
    await waitUntil(
      () => said.includes('connected'),
      60_000,
      () => `the echo connection never opened: ${said}`,
    );
    const from = agent!.output().length;
    const changedAt = Date.now();
    const patched = await world.admin.patch(`${MGMT}/posture-checks/${checkId}`, {
      macAddresses: ['02:00:00:00:00:01'],
    });
    expect(patched.status).toBe(200);
    await waitUntil(
      () => said.includes('closed') || said.includes('error'),
      60_000,
      () => said,
    );
    console.info(`intercept-mode: the open connection was cut ${Date.now() - changedAt} ms after the change`);
    const started = Date.now();
    const curl = await curlWiki(60);
    expect(curl.code).not.toBe(0);
    // 28 is curl's timeout: a refusal must come at once, never as a hang.
    expect(curl.code).not.toBe(28);
    console.info(
      `intercept-mode: the next attempt failed after ${Date.now() - started} ms (curl ${curl.code})`,
    );
    await agent!.waitFor(/tunnel (wiki|echo): refused: .*(MAC|network adapter)/i, 60_000, from);
  }, 300_000);

  it('after kill -9 the next start undoes the changes; a normal stop leaves nothing behind', async () => {
    expect(await systemState()).not.toBe(before);
    await agent!.stop('SIGKILL');
    // Killed: the changes are still there (nothing could undo them) ...
    const killed = await systemState();
    expect(killed).toContain('postern0');
    // ... until the next start, which undoes them before doing anything else, then intercepts again.
    agent = world.startAgent(['--intercept', '--interval', '2']);
    await agent.waitFor(/intercept: .*(removed|restored|undid)/i, 120_000);
    await agent.waitFor(new RegExp(`intercept wiki: ${WIKI_NAME}:443`), 120_000);
    expect(await agent.stop('SIGTERM')).toBe(0);
    agent = undefined;
    expect(await systemState()).toBe(before);
    expect(readFileSync(`/etc/netns/${world.names.client}/resolv.conf`, 'utf8')).toMatch(
      /nameserver 10\.200\.1\.1/,
    );
  }, 600_000);

  it("the service unit's stop step (`service --restore-only`) undoes a killed agent's changes", async () => {
    agent = world.startAgent(['--intercept', '--interval', '2']);
    await agent.waitFor(new RegExp(`intercept wiki: ${WIKI_NAME}:443`), 120_000);
    await agent.stop('SIGKILL');
    agent = undefined;
    expect(await systemState()).not.toBe(before);
    const restore = await world.runInClient(process.execPath, [
      '--import',
      'tsx',
      'src/agent/cli.ts',
      'service',
      '--restore-only',
      '--config-dir',
      world.agentDir,
    ]);
    expect(restore.stdout + restore.stderr).toMatch(/Undid intercept mode's changes: .*postern0/);
    expect(restore.code).toBe(0);
    expect(await systemState()).toBe(before);
  }, 300_000);
});

async function waitUntil(done: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
