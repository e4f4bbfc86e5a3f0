/**
 * The agent service as it runs: a real daemon process (`service --proxy-only`, so it changes nothing on this
 * shared machine) signed in to a real controller, its socket in a temp folder, real clients: root through
 * service-client.ts, a client run as nobody (uid 65534), raw frames. And `agent status` with and without it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../helpers/api.js';
import { startTestController, tempDir, type TestController } from '../helpers/controller.js';
import { adminApi } from '../helpers/agent-setup.js';
import { create, waitFor } from '../helpers/data-plane-world.js';
import { ServiceClient, ServiceError } from '../../src/agent/service/service-client.js';
import { MAX_FRAME_BYTES } from '../../src/agent/service/service-frames.js';
import { MAX_SERVICE_CONNECTIONS } from '../../src/agent/service/service-socket-server.js';
import type { ServiceEvent } from '../../src/agent/service/service-protocol.js';
import { enrollVerified, startMfaTestbed, type AuthenticatorApp, type MfaTestbed } from '../helpers/mfa.js';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'agent', 'cli.ts');
const root = process.getuid?.() === 0;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function agentCli(args: string[], env: Record<string, string> = {}, uid?: number): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(uid === undefined ? {} : { uid, gid: uid }),
  });
}

function finished(child: ChildProcess): Promise<Run> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** A daemon, resolved once it says it listens (or rejected with what it printed when it exits first). */
async function startDaemon(args: string[], env: Record<string, string> = {}) {
  const child = agentCli(['service', ...args], env);
  let output = '';
  const exited = finished(child);
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  await Promise.race([
    waitFor(() => output.includes('The Postern service listens on'), 60_000, 'the service to listen'),
    exited.then((run) => {
      throw new Error(`the service exited (${run.code}): ${output}`);
    }),
  ]);
  return {
    child,
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** What a client run as nobody reads from the socket (one JSON object per line), until it is closed. */
function nobodyReads(path: string): Promise<string> {
  const script = `const s=require('net').createConnection(${JSON.stringify(path)});let d='';
s.on('data',c=>d+=c);s.on('error',e=>{process.stdout.write('error '+e.code);process.exit(0)});
s.on('connect',()=>s.write(JSON.stringify({id:1,type:'hello'})+'\\n'));
s.on('close',()=>{process.stdout.write(d);process.exit(0)});setTimeout(()=>{process.stdout.write('timeout '+d);process.exit(0)},20000)`;
  const child = spawn(process.execPath, ['-e', script], { uid: 65534, gid: 65534 });
  return finished(child).then((run) => run.stdout);
}

describe('agent status without the service', () => {
  it('says proxy and why, in text and in --json', async () => {
    const dir = tempDir('postern-nosvc-');
    try {
      const env = { POSTERN_SERVICE_SOCKET: join(dir, 'absent.sock') };
      const base = [
        '--credential-store',
        'memory',
        '--config-dir',
        dir,
        '--controller',
        'http://127.0.0.1:9',
      ];
      const json = await finished(agentCli([...base, 'status', '--json'], env));
      const parsed = JSON.parse(json.stdout) as { mode: string; modeReason: string };
      expect(parsed.mode).toBe('proxy');
      expect(parsed.modeReason).toMatch(/^the Postern service is not (installed|running)/);
      const text = await finished(agentCli([...base, 'status'], env));
      expect(text.stdout).toMatch(/^mode: proxy \(the Postern service is not (installed|running).*\)$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!root)('the agent service (needs root: it refuses to run without it)', () => {
  let controller: TestController;
  const dir = tempDir('postern-svc-');
  const socket = join(dir, 'run', 'agent.sock');
  let daemon: Awaited<ReturnType<typeof startDaemon>>;
  let servicePort: number;

  beforeAll(async () => {
    // nobody must reach the socket's folder to be refused by the service rather than by the file system.
    chmodSync(dir, 0o755);
    controller = await startTestController();
    const admin = await adminApi(controller.url);
    await createUser(admin, 'svc-user', 'svc-password', { roleAttributes: ['svc'] });
    servicePort = 20000 + (process.pid % 20000);
    const intercept = await create(admin, 'configs', {
      name: 'wiki-intercept',
      configTypeId: 'intercept.v1',
      data: {
        protocols: ['tcp'],
        addresses: ['wiki.corp'],
        portRanges: [{ low: servicePort, high: servicePort }],
      },
    });
    const serviceId = await create(admin, 'services', { name: 'wiki', configs: [intercept] });
    await create(admin, 'service-policies', {
      name: 'wiki-dial',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: ['#svc'],
      serviceRoles: [`@${serviceId}`],
    });
    daemon = await startDaemon(
      [
        '--socket',
        socket,
        '--proxy-only',
        // root's group: it exists and nobody is not in it; uid 4242 allowed too, so the socket is 0666 and
        // nobody is turned away by the service (with a reason), not by the file system.
        '--allow-group',
        'root',
        '--allow-uid',
        '4242',
        '--credential-store',
        'memory',
        '--config-dir',
        join(dir, 'config'),
        '--controller',
        controller.url,
        '--username',
        'svc-user',
        '--socks-port',
        '0',
      ],
      { POSTERN_PASSWORD: 'svc-password' },
    );
  }, 90_000);

  afterAll(async () => {
    await daemon?.stop();
    await controller?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says hello with its honest mode (proxy: started with --proxy-only) and pid', async () => {
    const client = await ServiceClient.connect(socket);
    try {
      const hello = await client.request('hello');
      expect(hello).toMatchObject({ mode: 'proxy', pid: daemon.child.pid, protocol: 1 });
      expect(hello.why).toContain('--proxy-only');
      expect(statSync(socket).mode & 0o777).toBe(0o666);
      expect(statSync(join(dir, 'run')).mode & 0o777).toBe(0o755);
    } finally {
      client.close();
    }
  });

  it("answers status with the agent's session and each service's address", async () => {
    const client = await ServiceClient.connect(socket);
    try {
      await waitFor(
        async () => (await client.request('status')).services.some((s) => s.addresses.length > 0),
        30_000,
        'the service list with a listener',
      );
      const status = await client.request('status');
      expect(status.session).toMatchObject({ state: 'active', username: 'svc-user' });
      expect(status.session).not.toHaveProperty('apiSessionId');
      const wiki = status.services.find((s) => s.name === 'wiki');
      expect(wiki?.access).toBe('granted');
      expect(wiki?.addresses.some((a) => /^(127\.0\.0\.1|\[::1\]):\d+$/.test(a))).toBe(true);
    } finally {
      client.close();
    }
  });

  it('refuses a client run as uid 65534 with the reason, and stays usable for root', async () => {
    const frame = JSON.parse((await nobodyReads(socket)).trim()) as {
      id: null;
      error: { code: string; message: string };
    };
    expect(frame).toEqual({
      id: null,
      error: {
        code: 'NOT_ALLOWED',
        message: 'user 65534 is not allowed to use the Postern service: add them to the group root',
      },
    });
    // Refused twice within a minute: logged once.
    await nobodyReads(socket);
    expect(daemon.output().match(/refused a connection: user 65534/g)).toHaveLength(1);
    const client = await ServiceClient.connect(socket);
    try {
      expect((await client.request('hello')).pid).toBe(daemon.child.pid);
    } finally {
      client.close();
    }
  });

  it('closes a refused connection for good, even when the client keeps its own side open', async () => {
    // After its refusal, a client that never closes would hold one of the service's descriptors forever: it
    // writes until the service's side is gone (EPIPE), which must come well within the bound.
    const script = `const s=require('net').createConnection({path:${JSON.stringify(socket)},allowHalfOpen:true});
let d='';s.on('data',c=>d+=c);s.on('error',e=>{process.stdout.write('closed '+e.code+' '+d);process.exit(0)});
s.on('end',()=>setInterval(()=>s.write('x'),100));
setTimeout(()=>{process.stdout.write('still open '+d);process.exit(0)},15000)`;
    const run = await finished(spawn(process.execPath, ['-e', script], { uid: 65534, gid: 65534 }));
    expect(run.stdout).toMatch(/^closed EPIPE .*"NOT_ALLOWED"/);
  });

  it('holds at most its cap of connections at once: one more is closed unread, and a freed place is taken again', async () => {
    const open = () =>
      new Promise<Socket>((resolve, reject) => {
        const s = createConnection(socket, () => resolve(s));
        s.on('error', reject);
      });
    const closed = (s: Socket) => new Promise<void>((resolve) => s.once('close', () => resolve()));
    const held: Socket[] = [];
    try {
      for (let i = 0; i < MAX_SERVICE_CONNECTIONS; i++) held.push(await open());
      const outcome = await Promise.race([
        (async () => {
          const s = await open();
          await closed(s);
          return s.bytesRead === 0 ? 'closed unread' : 'closed after bytes';
        })(),
        new Promise((resolve) => setTimeout(() => resolve('still open'), 15_000)),
      ]);
      expect(outcome).toBe('closed unread');
      held.pop()!.destroy();
      await expect
        .poll(
          async () => {
            const c = await ServiceClient.connect(socket);
            try {
              return (await c.request('hello')).pid;
            } catch {
              return undefined;
            } finally {
              c.close();
            }
          },
          { timeout: 15_000 },
        )
        .toBe(daemon.child.pid);
    } finally {
      held.forEach((s) => s.destroy());
    }
  });

  it('answers a malformed frame with an error naming the field, and keeps the connection', async () => {
    const client = await ServiceClient.connect(socket);
    const frames: unknown[] = [];
    const raw = await new Promise<Socket>((resolve) => {
      const s = createConnection(socket);
      s.on('connect', () => resolve(s));
    });
    let buffer = '';
    raw.on('data', (c: Buffer) => {
      buffer += c.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) frames.push(JSON.parse(line));
    });
    try {
      raw.write('{not json\n');
      raw.write(`${JSON.stringify({ id: 2, type: 'launch' })}\n`);
      raw.write(`${JSON.stringify({ id: 3, type: 'submitCode', params: { code: '12' } })}\n`);
      raw.write(`${JSON.stringify({ id: 4, type: 'hello', extra: true })}\n`);
      raw.write(`${JSON.stringify({ id: 5, type: 'hello' })}\n`);
      await waitFor(() => frames.length >= 5, 15_000, 'five answers');
      expect(frames[0]).toMatchObject({ id: null, error: { code: 'INVALID_FRAME', field: 'frame' } });
      expect(frames[1]).toMatchObject({ id: 2, error: { code: 'INVALID_FRAME', field: 'type' } });
      expect(frames[2]).toMatchObject({ id: 3, error: { code: 'INVALID_FRAME', field: 'params.code' } });
      expect(frames[3]).toMatchObject({ id: 4, error: { code: 'INVALID_FRAME', field: 'extra' } });
      expect(frames[4]).toMatchObject({ id: 5, result: { mode: 'proxy' } });
      // No prompt open: a code has nothing to answer, and the service says so.
      await expect(client.request('submitCode', { code: '123456' })).rejects.toThrow(
        /no authenticator code is being asked for now/,
      );
      // A line over the cap: one error, then the service closes that connection (and only that one).
      const closed = new Promise<void>((resolve) => raw.on('close', () => resolve()));
      raw.write('x'.repeat(MAX_FRAME_BYTES + 10));
      await closed;
      expect(frames.at(-1)).toMatchObject({ id: null, error: { code: 'INVALID_FRAME', field: 'frame' } });
      expect((await client.request('hello')).mode).toBe('proxy');
    } finally {
      raw.destroy();
      client.close();
    }
  });

  it("`agent status` prints the service's mode and why", async () => {
    const run = await finished(
      agentCli(
        [
          '--credential-store',
          'memory',
          '--config-dir',
          tempDir(),
          '--controller',
          'http://127.0.0.1:9',
          'status',
          '--json',
        ],
        { POSTERN_SERVICE_SOCKET: socket },
      ),
    );
    const parsed = JSON.parse(run.stdout) as { mode: string; modeReason: string; routers: unknown };
    expect(parsed).toMatchObject({ mode: 'proxy' });
    // No `run` here: the service carries the services, and says which router does (none connected yet).
    expect(parsed.routers).toEqual({ wiki: null });
    expect(parsed.modeReason).toBe(
      `the Postern service (pid ${daemon.child.pid}) runs in proxy mode: the service was started with --proxy-only`,
    );
  });

  it('refuses to start where another service answers, naming the socket', async () => {
    const second = await finished(
      agentCli(['service', '--socket', socket, '--proxy-only', '--config-dir', join(dir, 'c2')]),
    );
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`another Postern service is already running on ${socket}`);
  });

  it('replaces the stale socket file of a killed service', async () => {
    const stale = join(dir, 'stale', 'agent.sock');
    mkdirSync(join(dir, 'stale'));
    const holder = spawn(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(stale)})`,
    ]);
    await waitFor(() => existsSync(stale), 15_000, 'the socket file');
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.on('close', resolve));
    expect(existsSync(stale)).toBe(true);
    // Only a group that exists (root's) may connect: the kernel gate, 0660 root:<group>.
    const again = await startDaemon([
      '--socket',
      stale,
      '--proxy-only',
      '--allow-group',
      'root',
      '--config-dir',
      join(dir, 'c3'),
    ]);
    try {
      expect(statSync(stale).mode & 0o777).toBe(0o660);
      expect(statSync(stale).gid).toBe(0);
      expect(await nobodyReads(stale)).toBe('error EACCES');
      const client = await ServiceClient.connect(stale);
      const status = await client.request('status');
      client.close();
      expect(status).toMatchObject({ mode: 'proxy', session: null });
      expect(status.problem).toMatch(/^no controller configured/);
    } finally {
      await again.stop();
    }
    expect(existsSync(stale)).toBe(false);
  });

  it('refuses to run without root, saying why (exit 1)', async () => {
    const run = await finished(agentCli(['service', '--socket', join(dir, 'x', 's.sock')], {}, 65534));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the Postern service must run as root');
  });

  it('a client with no service to connect to gets the errno, for the mode line to explain', async () => {
    const failure = await ServiceClient.connect(join(dir, 'none.sock')).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServiceError);
    expect((failure as ServiceError).errno).toBe('ENOENT');
  });
});

describe.skipIf(!root)("the agent service's code prompt (needs root)", () => {
  let bed: MfaTestbed;
  const dir = tempDir('postern-svc-mfa-');
  const socket = join(dir, 'run', 'agent.sock');
  let daemon: Awaited<ReturnType<typeof startDaemon>> | undefined;

  beforeAll(async () => {
    bed = await startMfaTestbed();
    const { api } = await bed.newUser('mfa-svc-user');
    const enrollment = await enrollVerified(api, bed.clock);
    bed.clock.nextStep();
    app = enrollment.app;
  });
  let app: AuthenticatorApp;

  afterAll(async () => {
    await daemon?.stop();
    await bed?.tc.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('raises code-wanted to subscribers, and `service code` answers it: the service signs in', async () => {
    daemon = await startDaemon(
      [
        '--socket',
        socket,
        '--proxy-only',
        '--credential-store',
        'memory',
        '--config-dir',
        join(dir, 'config'),
        '--controller',
        bed.tc.url,
        '--username',
        'mfa-svc-user',
        '--socks-port',
        '0',
      ],
      { POSTERN_PASSWORD: 'password-1' },
    );
    const client = await ServiceClient.connect(socket);
    try {
      const events: ServiceEvent[] = [];
      client.events.on((e) => events.push(e));
      await client.request('subscribe');
      // The sign-in owes a code: the prompt goes to subscribers (also to one that arrives after it opened).
      await waitFor(() => events.some((e) => e.event === 'code-wanted'), 30_000, 'code-wanted');
      expect(events.find((e) => e.event === 'code-wanted')?.data).toMatchObject({ reason: 'login' });
      const wrong = await finished(agentCli(['service', 'code', '000000', '--socket', socket]));
      expect(wrong.code).toBe(5);
      expect(wrong.stderr).toContain('the code was not accepted');
      const code = await app.code(bed.clock.now());
      const run = await finished(agentCli(['service', 'code', code, '--socket', socket]));
      expect(run.stderr + run.stdout).toContain('Code accepted.');
      expect(run.code).toBe(0);
      await waitFor(
        async () => (await client.request('status')).session?.state === 'active',
        30_000,
        'the service signed in',
      );
      expect(events.some((e) => e.event === 'code-prompt-closed')).toBe(true);
    } finally {
      client.close();
    }
  });
});
