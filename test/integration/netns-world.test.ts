/**
 * The network-namespace world intercept mode is tested in (test/helpers/netns-world.ts), proven before
 * anything is built on it: the service answers on its real address, the client namespace cannot reach it
 * directly, the client's system resolver is the test's, and the agent in the client namespace, in proxy
 * mode (SOCKS5), reaches the service through the router with the service's real certificate verifying.
 * Skipped, with the reason, where namespaces cannot be made (not Linux, not root, tools missing).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OTHER_ADDRESS,
  OTHER_NAME,
  SVC_ADDRESS,
  WIKI_BODY,
  WIKI_NAME,
  netnsUnavailable,
  startNetnsWorld,
  sweepStaleNamespaces,
  type NetnsWorld,
} from '../helpers/netns-world.js';
import type { AgentProcess } from '../helpers/reliability-agent-process.js';

const unavailable = netnsUnavailable();
if (unavailable) console.warn(`netns-world.test.ts skipped: ${unavailable}`);

/** A command in the root namespace, to its end. */
function runHere(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(command, args, { timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

describe.skipIf(unavailable !== null)('the netns world for intercept mode', () => {
  let world: NetnsWorld;
  let agent: AgentProcess | undefined;

  beforeAll(async () => {
    world = await startNetnsWorld();
  }, 900_000);

  afterAll(async () => {
    await agent?.stop();
    await world?.stop();
  }, 120_000);

  it('the service answers on its real address with a certificate for its real name (from the root namespace)', async () => {
    const run = await runHere('curl', [
      '--silent',
      '--show-error',
      '--max-time',
      '20',
      '--cacert',
      world.caFile,
      '--resolve',
      `${WIKI_NAME}:443:${SVC_ADDRESS}`,
      `https://${WIKI_NAME}/`,
    ]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(WIKI_BODY);
  });

  it('the client namespace has no route to the service network: a direct connection fails', async () => {
    const route = await world.runInClient('ip', ['route', 'get', SVC_ADDRESS]);
    expect(route.code).not.toBe(0);
    expect(route.stderr).toMatch(/unreachable/i);
    const curl = await world.runInClient('curl', [
      '--max-time',
      '3',
      '--insecure',
      `https://${SVC_ADDRESS}/`,
    ]);
    // 7: could not connect (network unreachable); 28 would be a timeout. Either way, no body.
    expect(curl.code).not.toBe(0);
    expect(curl.stdout).toBe('');
  });

  it("the client's system resolver is the test's: other.test resolves, other names do not", async () => {
    const other = await world.runInClient('getent', ['hosts', OTHER_NAME]);
    expect(other.code).toBe(0);
    expect(other.stdout.trim().split(/\s+/)).toEqual([OTHER_ADDRESS, OTHER_NAME]);
    const unknown = await world.runInClient('getent', ['hosts', WIKI_NAME]);
    expect(unknown.code).not.toBe(0);
    expect(world.dns.queries).toContain(OTHER_NAME);
    expect(world.dns.queries).toContain(WIKI_NAME);
  });

  it("the enrolled identity's files are in the agent's folder", () => {
    for (const file of ['agent.json', 'credentials.json', 'device-certificate.json'])
      expect(existsSync(join(world.agentDir, file)), file).toBe(true);
  });

  it('the agent in the client namespace (proxy mode, SOCKS5) reaches the service through the router, its real certificate verifying', async () => {
    agent = world.startAgent();
    const printed = await agent.waitFor(/socks5: listening on 127\.0\.0\.1:(\d+)/, 120_000);
    const port = /socks5: listening on 127\.0\.0\.1:(\d+)/.exec(printed)![1]!;
    // The service list arrives after sign-in; until then SOCKS5 refuses the name.
    await agent.waitFor(/wiki/, 120_000);
    const curl = await world.runInClient('curl', [
      '--silent',
      '--show-error',
      '--max-time',
      '30',
      '--socks5-hostname',
      `127.0.0.1:${port}`,
      '--cacert',
      world.caFile,
      `https://${WIKI_NAME}/`,
    ]);
    expect(curl.stderr).toBe('');
    expect(curl.code).toBe(0);
    expect(curl.stdout).toBe(WIKI_BODY);
  });
});

describe.skipIf(unavailable !== null)('sweepStaleNamespaces', () => {
  it("removes a dead process's namespace, veth end and resolv.conf folder, and leaves a live one's alone", async () => {
    // A pid that cannot run: above the kernel's pid_max limit (4194304).
    const dead = 'pnw4999999-1';
    const live = `pnw${process.pid}-99`;
    for (const tag of [dead, live]) {
      expect((await runHere('ip', ['netns', 'add', `${tag}-cli`])).code).toBe(0);
      expect(
        (
          await runHere('ip', [
            'link',
            'add',
            `${tag}c`,
            'type',
            'veth',
            'peer',
            'name',
            'veth0',
            'netns',
            `${tag}-cli`,
          ])
        ).code,
      ).toBe(0);
    }
    mkdirSync(`/etc/netns/${dead}-cli`, { recursive: true });
    try {
      const removed = sweepStaleNamespaces();
      expect(removed).toEqual(expect.arrayContaining([`${dead}-cli`, `${dead}c`]));
      expect(removed.filter((n) => n.startsWith(live))).toEqual([]);
      const namespaces = (await runHere('ip', ['netns', 'list'])).stdout;
      expect(namespaces).not.toContain(`${dead}-cli`);
      expect(namespaces).toContain(`${live}-cli`);
      expect((await runHere('ip', ['link', 'show', `${dead}c`])).code).not.toBe(0);
      expect((await runHere('ip', ['link', 'show', `${live}c`])).code).toBe(0);
      expect(existsSync(`/etc/netns/${dead}-cli`)).toBe(false);
    } finally {
      await runHere('ip', ['link', 'del', `${live}c`]);
      await runHere('ip', ['netns', 'del', `${live}-cli`]);
      await runHere('ip', ['link', 'del', `${dead}c`]);
      await runHere('ip', ['netns', 'del', `${dead}-cli`]);
    }
  });
});
