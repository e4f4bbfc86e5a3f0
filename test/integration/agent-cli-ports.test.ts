/**
 * No silent swaps of local ports, on the CLI as users run it (`tsx src/agent/cli.ts run`, a child process)
 * against a real controller, with a real TCP server (this node process) holding the port: a `--socks-port`
 * that is taken ends `run` naming the port and who holds it; a service whose intercepted port is taken
 * listens elsewhere and says so, with the port asked, the port used and the holder.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, MGMT } from '../helpers/api.js';
import { startTestController, tempDir, type TestController } from '../helpers/controller.js';
import { adminApi } from '../helpers/agent-setup.js';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'agent', 'cli.ts');
const configDir = tempDir('postern-cli-ports-');
const SERVICE = `ports-web-${process.pid}`;
let controller: TestController;
/** holds a port on 127.0.0.1 the way any other program would */
let squatter: Server;
let taken: number;

function start(args: string[]) {
  return spawn(
    process.execPath,
    ['--import', 'tsx', CLI, '--credential-store', 'memory', '--config-dir', configDir, ...args],
    { env: { ...process.env, POSTERN_PASSWORD: 'ports-password' }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
}

/** Runs `run --json` until the service's move is reported (or 30 s pass), then stops it. */
async function movedEvent(): Promise<Record<string, unknown> | undefined> {
  const child = start(['run', '--socks-port', '0', '--json']);
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const events = () =>
    out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const moved = () => events().find((e) => e.event === 'warning' && e.service === SERVICE);
  const listening = () => events().some((e) => e.event === 'listening' && e.service === SERVICE);
  const deadline = Date.now() + 30_000;
  while (!(moved() && listening()) && Date.now() < deadline && child.exitCode === null)
    await new Promise((resolve) => setTimeout(resolve, 100));
  child.kill('SIGTERM');
  await exited;
  return moved();
}

beforeAll(async () => {
  controller = await startTestController();
  const admin = await adminApi(controller.url);
  await createUser(admin, 'ports-user', 'ports-password', { roleAttributes: ['ports'] });
  squatter = createServer();
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  taken = (squatter.address() as { port: number }).port;
  const post = async (path: string, body: unknown) => {
    const res = await admin.post(`${MGMT}${path}`, body);
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data.id as string;
  };
  const intercept = await post('/configs', {
    name: `${SERVICE}-intercept`,
    configTypeId: 'intercept.v1',
    data: {
      protocols: ['tcp'],
      addresses: [`${SERVICE}.internal`],
      portRanges: [{ low: taken, high: taken }],
    },
  });
  const serviceId = await post('/services', { name: SERVICE, configs: [intercept] });
  await post('/service-policies', {
    name: `${SERVICE}-dial`,
    type: 'Dial',
    semantic: 'AllOf',
    identityRoles: ['#ports'],
    serviceRoles: [`@${serviceId}`],
  });
  const login = start(['--controller', controller.url, 'login', 'ports-user']);
  login.stdin.end('');
  expect(await new Promise((resolve) => login.on('exit', resolve))).toBe(0);
});

afterAll(async () => {
  await new Promise<void>((resolve) => (squatter ? squatter.close(() => resolve()) : resolve()));
  await controller?.dispose();
  rmSync(configDir, { recursive: true, force: true });
});

describe.runIf(process.platform === 'linux')('postern-agent run: busy local ports', () => {
  it('a --socks-port that is taken ends run with the port and who holds it, not a quiet move', async () => {
    const child = start(['run', '--socks-port', String(taken)]);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.stdin.end('');
    const timer = setTimeout(() => child.kill('SIGTERM'), 30_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearTimeout(timer);
    expect(code, out).toBe(1);
    expect(out).toContain(`127.0.0.1:${taken} is taken by pid ${process.pid} (node)`);
    expect(out).toContain('choose another port');
    expect(out).not.toContain('socks5: listening on');
  }, 40_000);

  it('a service whose intercepted port is taken moves and says from which port to which and why, on every run', async () => {
    rmSync(join(configDir, 'tunnel-ports.json'), { force: true });
    // The second run remembers the port used by the first: still a move from the intercepted port, still said,
    // and to the same port as before.
    const used: unknown[] = [];
    for (const runNumber of [1, 2]) {
      const event = await movedEvent();
      expect(event, `run ${runNumber}`).toBeDefined();
      expect(event!.askedPort).toBe(taken);
      expect(event!.port).not.toBe(taken);
      expect(event!.message).toContain(`127.0.0.1:${taken} is taken by pid ${process.pid} (node)`);
      expect(event!.message).toContain(`listening on port ${String(event!.port)} instead of ${taken}`);
      used.push(event!.port);
    }
    expect(used[1]).toBe(used[0]);
  }, 80_000);
});
