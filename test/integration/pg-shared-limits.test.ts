/**
 * Two controller instances on one PostgreSQL database share their password limits: 40 parallel wrong
 * passwords for one account from one address, half to each instance, get no more tries than one instance
 * would give (the per-pair limit), and the block that follows holds at both until it ends.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController, type RunningController } from '../../controller/composition/start-controller.js';
import { Api, CLIENT, createUser } from '../helpers/api.js';
import { ADMIN_PASSWORD, tempDir } from '../helpers/controller.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { testConfig } from '../helpers/test-database.js';

describe('password limits shared by two controller instances', () => {
  let server: PostgresServer;
  const instances: { running: RunningController; dir: string }[] = [];

  beforeAll(async () => {
    server = await startPostgres();
    const database = await server.createDatabase();
    for (const name of ['a', 'b']) {
      const dir = tempDir(`postern-limits-${name}-`);
      const running = await startController(await testConfig(dir, { database }), {
        adminPassword: ADMIN_PASSWORD,
      });
      instances.push({ running, dir });
    }
  }, 60_000);

  afterAll(async () => {
    for (const { running, dir } of instances) {
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    }
    await server?.stop();
  });

  it('40 parallel wrong passwords split 20/20 get at most the per-pair limit of tries; the block holds at both', async () => {
    const [a, b] = instances.map((i) => i.running) as [RunningController, RunningController];
    const admin = new Api(a.url);
    expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
    await createUser(admin, 'shared-target', 'the-right-password');

    // Every request comes from 127.0.0.1: one account, one address, two instances.
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        new Api((i % 2 ? b : a).url).login('shared-target', `wrong-${i}`, CLIENT),
      ),
    );
    const statuses = answers.map((r) => r.status);
    const judged = statuses.filter((s) => s === 401).length;
    expect(judged).toBeGreaterThan(0);
    expect(judged).toBeLessThanOrEqual(a.ctx.config.loginMaxFailures);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40 - judged);
    for (const refused of answers.filter((r) => r.status === 429))
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    // Finish the pair's budget (parallel attempts may have stopped short of it): its block then starts.
    for (let i = judged; i < a.ctx.config.loginMaxFailures; i++)
      expect((await new Api(a.url).login('shared-target', `more-wrong-${i}`, CLIENT)).status).toBe(401);
    for (const instance of [a, b]) {
      const res = await new Api(instance.url).login('shared-target', 'the-right-password', CLIENT);
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }

    // The first block is 30 s: past it (both instances' clocks, as NTP keeps them together), the password works.
    const realClocks = [a.ctx.clock, b.ctx.clock];
    for (const instance of [a, b]) instance.ctx.clock = { now: () => new Date(Date.now() + 31_000) };
    try {
      expect((await new Api(b.url).login('shared-target', 'the-right-password', CLIENT)).status).toBe(200);
    } finally {
      a.ctx.clock = realClocks[0]!;
      b.ctx.clock = realClocks[1]!;
    }
  });
});
