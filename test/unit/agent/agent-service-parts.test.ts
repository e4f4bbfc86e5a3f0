/**
 * The agent service's parts that need no root: the frame checks (every field named), the framing's cap on
 * a real socket pair, who may connect (a group file and /proc written here), the refusal log's rate, the
 * prompt bridge, and the mode's reasons for each way of not reaching the service.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { EventEmitter } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { checkRequestFrame } from '../../../src/agent/service/service-protocol.js';
import { MAX_FRAME_BYTES, readFrames, type FrameOutcome } from '../../../src/agent/service/service-frames.js';
import { decideAccess, RefusalLog } from '../../../src/agent/service/peer-access.js';
import { ServicePrompts } from '../../../src/agent/service/service-prompts.js';
import { serviceMode } from '../../../src/agent/service/service-mode.js';
import { Listeners } from '../../../src/common/listeners.js';
import { AgentService } from '../../../src/agent/service/agent-service.js';
import type { Agent } from '../../../src/agent/agent.js';
import type { ServiceEvent } from '../../../src/agent/service/service-protocol.js';
import type { TotpPrompt } from '../../../src/agent/prompts/prompt-port.js';

const dirs: string[] = [];
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'postern-svc-unit-'));
  dirs.push(dir);
  return dir;
};

describe('request frames', () => {
  const problem = (value: unknown) =>
    'problem' in checkRequestFrame(value) ? checkRequestFrame(value) : null;

  it('accepts each declared request', () => {
    for (const frame of [
      { id: 0, type: 'hello' },
      { id: 1, type: 'status' },
      { id: 2, type: 'subscribe' },
      { id: 3, type: 'submitCode', params: { code: '123456' } },
      { id: 4, type: 'submitCode', params: { code: 'ABCD-2345-WXYZ' } },
    ])
      expect(checkRequestFrame(frame)).toEqual({ frame });
  });

  it.each([
    ['a non-object', [1, 2], 'frame'],
    ['null', null, 'frame'],
    ['an unknown field', { id: 1, type: 'hello', admin: true }, 'admin'],
    ['no id', { type: 'hello' }, 'id'],
    ['a negative id', { id: -1, type: 'hello' }, 'id'],
    ['a fractional id', { id: 1.5, type: 'hello' }, 'id'],
    ['an unknown type', { id: 1, type: 'shutdown' }, 'type'],
    ['a prototype key as type', { id: 1, type: 'constructor' }, 'type'],
    ['params where none are taken', { id: 1, type: 'status', params: {} }, 'params'],
    ['submitCode without params', { id: 1, type: 'submitCode' }, 'params'],
    ['a code that is not one', { id: 1, type: 'submitCode', params: { code: '12; rm -rf' } }, 'params.code'],
    ['a numeric code', { id: 1, type: 'submitCode', params: { code: 123456 } }, 'params.code'],
    ['an extra param', { id: 1, type: 'submitCode', params: { code: '123456', x: 1 } }, 'params.x'],
  ])('refuses %s, naming the field', (_what, value, field) => {
    expect(problem(value)).toMatchObject({ problem: { field } });
  });
});

describe('framing', () => {
  async function pair(): Promise<{ client: Socket; server: Socket }> {
    const path = join(temp(), 's');
    const listener = createServer();
    servers.push(listener);
    await new Promise<void>((resolve) => listener.listen(path, resolve));
    const accepted = new Promise<Socket>((resolve) => listener.once('connection', resolve));
    const client = createConnection(path);
    return { client, server: await accepted };
  }

  it('reads lines split across chunks, skips blank ones and says which are not JSON', async () => {
    const { client, server } = await pair();
    const got: FrameOutcome[] = [];
    readFrames(server, (o) => got.push(o));
    client.write('{"a":');
    client.write('1}\n\n{"b":2}\nnope\n');
    await expect.poll(() => got.length).toBe(3);
    expect(got[0]).toEqual({ kind: 'frame', value: { a: 1 } });
    expect(got[1]).toEqual({ kind: 'frame', value: { b: 2 } });
    expect(got[2]).toMatchObject({ kind: 'not-json' });
    client.destroy();
  });

  it('stops at the cap: a line longer than 64 KiB is reported once and never buffered further', async () => {
    const { client, server } = await pair();
    const got: FrameOutcome[] = [];
    readFrames(server, (o) => got.push(o));
    const ok = `{"x":"${'a'.repeat(MAX_FRAME_BYTES - 20)}"}\n`;
    client.write(ok);
    // No newline yet: the cap is met while the line is still arriving, not when it ends.
    client.write('b'.repeat(MAX_FRAME_BYTES + 1));
    await expect.poll(() => got.length).toBe(2);
    client.write('\n{"after":1}\n');
    expect(got[0]).toMatchObject({ kind: 'frame' });
    expect(got[1]).toEqual({ kind: 'too-large' });
    await new Promise((r) => setTimeout(r, 100));
    expect(got).toHaveLength(2);
    client.destroy();
  });
});

describe('who may connect', () => {
  // Made once for the block (afterEach's clean-up is for the other tests' folders).
  const systemDir = mkdtempSync(join(tmpdir(), 'postern-svc-system-'));
  afterAll(() => rmSync(systemDir, { recursive: true, force: true }));
  function system(groupLines: string, procs: Record<number, string>) {
    const dir = systemDir;
    writeFileSync(join(dir, 'group'), groupLines);
    for (const [pid, status] of Object.entries(procs)) {
      mkdirSync(join(dir, 'proc', pid), { recursive: true });
      writeFileSync(join(dir, 'proc', pid, 'status'), status);
    }
    return { groupFile: join(dir, 'group'), procDir: join(dir, 'proc') };
  }
  const files = system('root:x:0:\npostern:x:990:alice\nstaff:x:50:\n', {
    100: 'Name:\tbash\nUid:\t1001\t1001\t1001\t1001\nGid:\t1001\t1001\t1001\t1001\nGroups:\t27 990 \n',
    200: 'Name:\tbash\nUid:\t1002\t1002\t1002\t1002\nGroups:\t50\n',
    300: 'Name:\tother\nUid:\t1003\t1003\t1003\t1003\nGroups:\t990\n',
  });
  const policy = { allowGroup: 'postern', allowUids: [4242] };

  it('allows root, a listed uid, and a member of the group (supplementary or primary)', () => {
    expect(decideAccess({ pid: 1, uid: 0, gid: 0 }, policy, files)).toEqual({ allowed: true });
    expect(decideAccess({ pid: 9, uid: 4242, gid: 4242 }, policy, files)).toEqual({ allowed: true });
    expect(decideAccess({ pid: 100, uid: 1001, gid: 1001 }, policy, files)).toEqual({ allowed: true });
    expect(decideAccess({ pid: 555, uid: 1005, gid: 990 }, policy, files)).toEqual({ allowed: true });
  });

  it('refuses anyone else, saying what to do', () => {
    expect(decideAccess({ pid: 200, uid: 1002, gid: 1002 }, policy, files)).toEqual({
      allowed: false,
      reason: 'user 1002 is not allowed to use the Postern service: add them to the group postern',
    });
  });

  it("does not judge a peer by another user's process that took its pid", () => {
    // pid 300 belongs to uid 1003 (in the group) now; the peer that connected was uid 1001.
    expect(decideAccess({ pid: 300, uid: 1001, gid: 1001 }, policy, files).allowed).toBe(false);
  });

  it('says when the group does not exist', () => {
    const decision = decideAccess(
      { pid: 100, uid: 1001, gid: 1001 },
      { ...policy, allowGroup: 'nope' },
      files,
    );
    expect(decision).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('the group nope does not exist'),
    });
  });

  it('logs a refused uid once per minute', () => {
    const lines: string[] = [];
    let now = 0;
    const log = new RefusalLog(
      (l) => lines.push(l),
      60_000,
      () => now,
    );
    log.refused(1002, 'r');
    log.refused(1002, 'r');
    log.refused(1003, 'r');
    now = 59_999;
    log.refused(1002, 'r');
    expect(lines).toHaveLength(2);
    now = 60_000;
    log.refused(1002, 'r');
    expect(lines).toHaveLength(3);
  });
});

describe('the prompt bridge', () => {
  const prompt: TotpPrompt = { reason: 'unlock', services: [], attempt: 1, acceptsRecoveryCode: true };

  it('raises code-wanted, answers with the submitted code, and tells whether it was accepted', async () => {
    const events: ServiceEvent[] = [];
    const accepted = new Listeners<string>();
    const prompts = new ServicePrompts((e) => events.push(e));
    prompts.watchAccepted(accepted);
    const answer = prompts.promptTotp(prompt, new AbortController().signal);
    expect(events).toEqual([{ event: 'code-wanted', data: prompt }]);
    const verdict = prompts.submit('123456');
    expect(await answer).toBe('123456');
    accepted.emit('unlock');
    expect(await verdict).toBe(true);
    expect(events.at(-1)).toEqual({ event: 'code-prompt-closed', data: {} });
    expect(prompts.current()).toBeNull();
  });

  it('says refused when the agent asks again, and closes when the agent no longer needs a code', async () => {
    const prompts = new ServicePrompts(() => undefined);
    const first = prompts.promptTotp(prompt, new AbortController().signal);
    const verdict = prompts.submit('000000');
    await first;
    const again = new AbortController();
    const second = prompts.promptTotp({ ...prompt, attempt: 2, error: 'wrong' }, again.signal);
    expect(await verdict).toBe(false);
    again.abort();
    expect(await second).toBeNull();
    await expect(prompts.submit('123456')).rejects.toThrow('no authenticator code is being asked for now');
  });
});

describe('the mode and why, without the service', () => {
  it('not installed, not running, a leftover file', async () => {
    const dir = temp();
    const path = join(dir, 'agent.sock');
    expect(await serviceMode(path, { installed: () => false })).toEqual({
      mode: 'proxy',
      why: 'the Postern service is not installed',
    });
    expect((await serviceMode(path, { installed: () => true })).why).toBe(
      `the Postern service is not running (no socket at ${path})`,
    );
    // A file there that nothing answers on (a crashed service's leftover).
    writeFileSync(join(dir, 'plain'), '');
    const stale = await serviceMode(join(dir, 'plain'), { installed: () => true });
    expect(stale.mode).toBe('proxy');
    expect(stale.why).toMatch(/^the Postern service (is not running|did not answer)/);
  });
});

describe('the mode the service claims', () => {
  /** The parts of an Agent the service reads, its tunnel in either mode. */
  function agentWith(intercept: boolean) {
    const tunnel = {
      events: new EventEmitter(),
      mode: intercept ? 'intercept' : 'proxy',
      localAddresses: () => new Map([['wiki', [intercept ? 'wiki.corp:443' : '127.0.0.1:8443']]]),
      carriedBy: () => new Map([['wiki', { name: 'edge-2', url: 'tls://127.0.0.1:3022' }]]),
    };
    return {
      tunnel,
      prompter: { accepted: new Listeners<string>() },
      serviceChanges: new Listeners<unknown>(),
      status: () => ({ state: 'active', controllerUrl: 'https://c', apiSessionId: 'secret-ish' }),
      services: () => [
        {
          id: 's1',
          name: 'wiki',
          access: 'granted',
          failing: [],
          mfaTimeoutRemaining: null,
          mfaReason: null,
        },
      ],
    } as unknown as Agent;
  }

  it("is intercept when the agent's tunnel intercepts; the addresses are the real ones", async () => {
    const service = new AgentService(() => undefined);
    service.attach(agentWith(true));
    service.settleMode('unused');
    const hello = await service.handlers().hello(undefined, { uid: 0, subscribe() {} });
    expect(hello).toMatchObject({
      mode: 'intercept',
      why: 'programs reach each service at its own name and address',
      pid: process.pid,
    });
    const status = service.status();
    expect(status.services[0]!.addresses).toEqual(['wiki.corp:443']);
    // and which edge router carries it
    expect(status.services[0]!.carriedBy).toBe('edge-2');
    expect(status.session).not.toHaveProperty('apiSessionId');
  });

  it('is proxy, saying why, when the tunnel does not intercept', () => {
    const notAsked = new AgentService(() => undefined);
    notAsked.attach(agentWith(false));
    notAsked.settleMode('the service was started with --proxy-only');
    expect(notAsked.status()).toMatchObject({
      mode: 'proxy',
      why: 'the service was started with --proxy-only',
    });
    expect(notAsked.status().services[0]!.addresses).toEqual(['127.0.0.1:8443']);
  });
});
