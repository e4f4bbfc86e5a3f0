/**
 * The admin CLI's `webhooks` noun against a real controller, a child process per command: a subscription
 * created with its secret read from a file (never printed, never in any answer), listed, shown, changed and
 * deleted; its deliveries through an outage to a real receiver that verifies signatures, the dead-letter
 * list and a redelivery; the syslog export's status. What a command did is checked through the API too.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAdminCli, type AdminCli, type CliRun } from '../helpers/admin-cli-process.js';
import { Api, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';
import { withoutProgress } from '../helpers/cli-progress.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET = 'cli-webhook-secret-that-must-stay-hidden';
let tc: TestController;
let api: Api;
let cli: AdminCli;
let secretFile: string;

const admin = (...args: string[]) => cli.run(args);

function ok(run: CliRun): CliRun {
  expect({ code: run.code, stderr: withoutProgress(run.stderr) }).toEqual({ code: 0, stderr: '' });
  expect(run.stdout + run.stderr).not.toContain(SECRET);
  return run;
}

const hookNamed = async (name: string) =>
  (await api.get(`${MGMT}/webhooks?filter=${encodeURIComponent(`name = "${name}"`)}`)).body.data[0];

beforeAll(async () => {
  tc = await startTestController({
    eventDelivery: { pollMs: 100, retryMinMs: 100, retryMaxMs: 200, maxAttempts: 2 },
  });
  api = new Api(tc.url);
  await api.login('admin', ADMIN_PASSWORD);
  secretFile = join(tc.dataDir, 'hook-secret');
  writeFileSync(secretFile, `${SECRET}\n`, { mode: 0o600 });
  cli = await buildAdminCli(() => ({
    POSTERN_CONTROLLER_URL: tc.url,
    POSTERN_ADMIN_USERNAME: 'admin',
    POSTERN_ADMIN_PASSWORD: ADMIN_PASSWORD,
    POSTERN_CREDENTIAL_STORE: 'memory',
    POSTERN_TOTP_CODE: '',
  }));
});

afterAll(async () => {
  cli?.dispose();
  await tc?.dispose();
});

describe('postern-admin webhooks', { timeout: 120_000 }, () => {
  it('creates, lists, shows, updates and deletes a subscription, the secret read from a file and never shown', async () => {
    const receiver = await new WebhookReceiver(SECRET).start();
    try {
      const made = ok(
        await admin(
          'webhooks',
          'create',
          'soc',
          '--url',
          receiver.url,
          '--event-type',
          'access.refused',
          '--event-type',
          'admin.created',
          '--secret-file',
          secretFile,
        ),
      ).stdout;
      expect(made).toMatch(/^Created webhook 'soc' \(\S+\)\./);
      const stored = await hookNamed('soc');
      expect(stored).toMatchObject({
        name: 'soc',
        url: receiver.url,
        eventTypes: ['access.refused', 'admin.created'],
      });

      // The secret is the file's text without its newline: a delivery verifies with it.
      await api.post(`${MGMT}/identities`, { name: 'hooked-by-cli', type: 'User', isAdmin: false });
      // Its own creation is the first event it gets, the identity's the second.
      const [own, event] = await receiver.waitFor(2);
      expect(own).toMatchObject({ type: 'admin.created', details: { entityType: 'webhooks' } });
      expect(event).toMatchObject({ type: 'admin.created', details: { entityType: 'identities' } });
      expect(receiver.badSignatures).toBe(0);

      const table = ok(await admin('webhooks', 'list')).stdout;
      expect(table).toMatch(/NAME\s+ID\s+URL\s+EVENT TYPES\s+ENABLED\s+PENDING\s+DEAD/);
      expect(table).toMatch(
        /soc\s+\S+\s+http:\/\/127\.0\.0\.1:\d+\/hook\s+access\.refused, admin\.created\s+yes/,
      );
      const shown = ok(await admin('webhooks', 'show', 'soc')).stdout;
      expect(shown).toContain(receiver.url);
      ok(await admin('webhooks', 'show', 'soc', '--json'));
      ok(await admin('webhooks', 'list', '--json'));

      ok(await admin('webhooks', 'update', 'soc', '--event-type', '*', '--secret', `${SECRET}-rotated`));
      expect((await hookNamed('soc')).eventTypes).toEqual(['*']);
      ok(await admin('webhooks', 'delete', 'soc'));
      expect(await hookNamed('soc')).toBeUndefined();
    } finally {
      await receiver.close();
    }
  });

  it('refuses --secret with --secret-file, an empty secret file and a bad --state before signing in, changing nothing', async () => {
    const both = await admin(
      'webhooks',
      'create',
      'twice',
      '--url',
      'https://siem.example.com/hook',
      '--secret',
      SECRET,
      '--secret-file',
      secretFile,
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--secret or --secret-file, not both');
    const empty = join(tc.dataDir, 'empty-secret');
    writeFileSync(empty, '\n');
    const none = await admin(
      'webhooks',
      'create',
      'empty',
      '--url',
      'https://a.example.com/',
      '--secret-file',
      empty,
    );
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('is empty');
    const state = await admin('webhooks', 'deliveries', '--state', 'lost');
    expect(state.code).toBe(2);
    expect(state.stderr).toContain('--state must be pending, delivered, dead');
    const misplaced = await admin('webhooks', 'list', '--state', 'dead');
    expect(misplaced.code).toBe(2);
    expect((await api.get(`${MGMT}/webhooks`)).body.data).toEqual([]);
  });

  it('a refused URL or short secret exits 1 naming the field, without echoing the secret', async () => {
    const plain = await admin(
      'webhooks',
      'create',
      'plain',
      '--url',
      'http://siem.example.com/',
      '--secret-file',
      secretFile,
    );
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('url');
    expect(plain.stderr).not.toContain(SECRET);
    const short = await admin(
      'webhooks',
      'create',
      'short',
      '--url',
      'https://siem.example.com/',
      '--secret',
      'tiny-secret',
    );
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('secret');
    expect(short.stderr).not.toContain('tiny-secret');
    expect((await api.get(`${MGMT}/webhooks`)).body.data).toEqual([]);
  });

  it('lists a dead letter with its last error and redelivers it', async () => {
    const receiver = await new WebhookReceiver(SECRET).start();
    try {
      ok(
        await admin(
          'webhooks',
          'create',
          'flaky',
          '--url',
          receiver.url,
          '--event-type',
          'admin.created',
          '--secret-file',
          secretFile,
        ),
      );
      const hookId = (await hookNamed('flaky')).id as string;
      // Its own creation arrives first; then the receiver goes down.
      await receiver.waitFor(1);
      receiver.failNext(2);
      const created = await api.post(`${MGMT}/services`, { name: 'dead-lettered-service' });
      expect(created.status).toBe(201);
      // Two attempts (this controller's maximum), both refused: the delivery goes to the dead-letter list.
      const deadline = Date.now() + 60_000;
      let dead: { id: string; lastError: string }[] = [];
      while (dead.length === 0 && Date.now() < deadline) {
        dead = (await api.get(`${MGMT}/webhook-deliveries?state=dead&webhookId=${hookId}`)).body.data;
        if (dead.length === 0) await new Promise((r) => setTimeout(r, 200));
      }
      expect(dead).toHaveLength(1);

      const listed = ok(await admin('webhooks', 'deliveries', 'flaky', '--state', 'dead')).stdout;
      expect(listed).toMatch(
        /ID\s+WEBHOOK\s+EVENT TYPE\s+STATE\s+ATTEMPTS\s+NEXT ATTEMPT\s+CREATED\s+LAST ERROR/,
      );
      expect(listed).toMatch(new RegExp(`${dead[0]!.id}\\s+flaky\\s+admin\\.created\\s+dead\\s+2\\s+.*503`));
      const all = JSON.parse(ok(await admin('webhooks', 'deliveries', '--state', 'dead', '--json')).stdout);
      expect(all.data.map((d: { id: string }) => d.id)).toContain(dead[0]!.id);

      const again = ok(await admin('webhooks', 'redeliver', dead[0]!.id)).stdout;
      expect(again).toMatch(/^Queued the admin\.created event \S+ again: delivery \S+\./);
      const [, event] = await receiver.waitFor(2);
      expect(event).toMatchObject({ type: 'admin.created', details: { entityId: created.body.data.id } });
      expect((await api.get(`${MGMT}/webhook-deliveries?state=dead&webhookId=${hookId}`)).body.data).toEqual(
        [],
      );
      expect(ok(await admin('webhooks', 'deliveries', 'flaky', '--state', 'dead')).stdout).toBe(
        'No deliveries.\n',
      );

      const unknown = await admin('webhooks', 'redeliver', 'no-such-delivery');
      expect(unknown.code).toBe(1);
      ok(await admin('webhooks', 'delete', 'flaky'));
    } finally {
      await receiver.close();
    }
  });

  it("shows the syslog export's status", async () => {
    const text = ok(await admin('webhooks', 'syslog')).stdout;
    expect(text).toMatch(/^configured\s+false$/m);
    expect(JSON.parse(ok(await admin('webhooks', 'syslog', '--json')).stdout)).toMatchObject({
      configured: false,
      full: false,
    });
  });
});
