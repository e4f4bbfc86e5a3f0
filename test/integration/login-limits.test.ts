/**
 * Password logins under attack: a parallel burst for one account gets no more tries than the limit (each
 * attempt is counted before its hash is computed), an anonymous flood is bounded by the hashing gate (429
 * with Retry-After beyond a short queue) so an administrator still signs in, and a hostile username cannot
 * forge log lines.
 */
import { testConfig } from '../helpers/test-database.js';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { Api, CLIENT, createUser } from '../helpers/api.js';
import { ADMIN_PASSWORD, tempDir } from '../helpers/controller.js';
import type { ControllerConfig } from '../../controller/config.js';
import { startController, type RunningController } from '../../controller/composition/start-controller.js';
import { rmSync } from 'node:fs';

const started: { running: RunningController; dir: string }[] = [];
afterEach(async () => {
  for (const { running, dir } of started.splice(0)) {
    await running.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

async function controller(config: Partial<ControllerConfig> = {}, logDestination?: NodeJS.WritableStream) {
  const dir = tempDir();
  const running = await startController(await testConfig(dir, { logLevel: 'info', ...config }), {
    adminPassword: ADMIN_PASSWORD,
    logDestination: logDestination ?? new PassThrough().resume(),
  });
  started.push({ running, dir });
  const admin = new Api(running.url);
  expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
  return { running, admin };
}

describe('password login limits', () => {
  it('40 parallel guesses for one account get at most the limit of tries, the right password included', async () => {
    const { running, admin } = await controller();
    await createUser(admin, 'burst-target', 'the-right-password');
    const guesses = Array.from({ length: 40 }, (_, i) => (i === 37 ? 'the-right-password' : `wrong-${i}`));
    const answers = await Promise.all(
      guesses.map((password) => new Api(running.url).login('burst-target', password, CLIENT)),
    );
    const statuses = answers.map((a) => a.status);
    const tried = statuses.filter((s) => s === 200 || s === 401).length;
    expect(tried).toBeLessThanOrEqual(running.ctx.config.loginMaxFailures);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40 - tried);
    // The password in position 37 was never checked: it came after the limit.
    expect(statuses[37]).toBe(429);
    for (const refused of answers.filter((a) => a.status === 429))
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('an anonymous flood of 100 logins is bounded, and the administrator still signs in', async () => {
    // The per-address limit would stop a one-address flood by itself; raise it to see the hashing gate.
    const { running } = await controller({ loginMaxFailuresPerAddress: 10_000 });
    const flood = Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        new Api(running.url).login(`nobody-${i}`, 'some-password', CLIENT),
      ),
    );
    const admin = await new Api(running.url).login('admin', ADMIN_PASSWORD);
    const statuses = (await flood).map((a) => a.status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    // The admin was either let through or told when to come back; once the flood is answered, it signs in.
    expect([200, 429]).toContain(admin.status);
    expect((await new Api(running.url).login('admin', ADMIN_PASSWORD)).status).toBe(200);
  });

  it('writes a hostile username escaped and cut short in the failed-login log', async () => {
    const sink = new PassThrough();
    let log = '';
    sink.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const { running } = await controller({}, sink);
    const hostile = `eve\u001b[2J\u202e${'x'.repeat(90)}`;
    expect((await new Api(running.url).login(hostile, 'wrong-password', CLIENT)).status).toBe(401);
    const line = log.split('\n').find((l) => l.includes('password authentication failed'))!;
    const username = (JSON.parse(line) as { username: string }).username;
    expect(username.startsWith('eve\\u001b[2J\\u202e')).toBe(true);
    expect(username).toContain('…(98 chars)');
    expect(username).not.toMatch(/[\p{Cc}\p{Cf}]/u);
  });
});

describe('--trust-proxy', () => {
  /** A wrong password for a fresh username (so only the address limit can bite), "from" `address`. */
  const wrongFrom = (url: string, address: string) =>
    new Api(url).request(
      'POST',
      `${CLIENT}/authenticate?method=password`,
      { username: `nobody-${address}-${Math.random()}`.slice(0, 40), password: 'wrong-password' },
      { 'x-forwarded-for': address },
    );

  it('off (the default): X-Forwarded-For is ignored, so a client cannot pick its own address', async () => {
    const { running } = await controller({ loginMaxFailuresPerAddress: 3 });
    for (const address of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) await wrongFrom(running.url, address);
    // three failures from "three addresses" were all 127.0.0.1: the address is blocked
    expect((await wrongFrom(running.url, '10.0.0.4')).status).toBe(429);
  });

  it('on: each forwarded address has its own budget', async () => {
    const { running } = await controller({ loginMaxFailuresPerAddress: 3, trustProxy: true });
    for (let i = 0; i < 3; i++) await wrongFrom(running.url, '10.0.0.1');
    expect((await wrongFrom(running.url, '10.0.0.1')).status).toBe(429);
    expect((await wrongFrom(running.url, '10.0.0.2')).status).toBe(401);
  });
});

describe('nobody can lock another user out', () => {
  const loginFrom = (url: string, username: string, password: string, address: string) =>
    new Api(url).request(
      'POST',
      `${CLIENT}/authenticate?method=password`,
      { username, password },
      { 'x-forwarded-for': address },
    );

  it('wrong passwords for the administrator from one address block that address only', async () => {
    const { running } = await controller({ trustProxy: true });
    for (let i = 0; i < 5; i++)
      expect((await loginFrom(running.url, 'admin', 'wrong-password', '10.0.0.66')).status).toBe(401);
    expect((await loginFrom(running.url, 'admin', ADMIN_PASSWORD, '10.0.0.66')).status).toBe(429);
    expect((await loginFrom(running.url, 'admin', ADMIN_PASSWORD, '10.0.0.1')).status).toBe(200);
  });

  it('guessing spread over many addresses blocks the account for a short delay, clean addresses included', async () => {
    const { running } = await controller({ trustProxy: true, loginMaxFailuresPerAccount: 6 });
    for (const address of ['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6', '10.0.0.7'])
      expect((await loginFrom(running.url, 'admin', 'wrong-password', address)).status).toBe(401);
    const res = await loginFrom(running.url, 'admin', ADMIN_PASSWORD, '10.0.0.1');
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBe(30);
  });
});
