/**
 * `postern-admin audit list` (with its filters and `--follow`) and `audit export`, a child process per command
 * against a real controller: the filters find what the management API holds, a reference is found however it
 * was read out, `--follow` prints each new event once and carries on across a controller restart, and the
 * export writes what the controller streams. Bad flags are usage errors before any sign-in.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAdminCli, type AdminCli, type CliRun } from '../helpers/admin-cli-process.js';
import { Api, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, tempDir, type TestController } from '../helpers/controller.js';
import { withoutProgress } from '../helpers/cli-progress.js';
import { unique } from '../helpers/posture-world.js';

const dataDir = tempDir('postern-admin-audit-');
const outDir = tempDir('postern-admin-audit-out-');
let tc: TestController;
let api: Api;
let cli: AdminCli;
const ids = { dana: '', payroll: '' };
let danaName = '';
const followers: ChildProcessWithoutNullStreams[] = [];

const admin = (...args: string[]) => cli.run(args);

function ok(run: CliRun): CliRun {
  expect({ code: run.code, stderr: withoutProgress(run.stderr) }).toEqual({ code: 0, stderr: '' });
  return run;
}

function failed(run: CliRun, code: number): string {
  const stderr = withoutProgress(run.stderr).trim();
  expect({ code: run.code, lines: stderr.split('\n').length }).toEqual({ code, lines: 1 });
  return stderr;
}

async function eventsOf(filter: string): Promise<any[]> {
  const res = await api.get(`${MGMT}/audit-events?limit=500&filter=${encodeURIComponent(filter)}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

/** Resolves once `pick` finds what it wants in the text so far; fails after a generous wait. */
function waitFor<T>(read: () => string, pick: (text: string) => T | undefined, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      const found = pick(read());
      if (found !== undefined) {
        clearInterval(timer);
        resolve(found);
      } else if (Date.now() - started > 60_000) {
        clearInterval(timer);
        reject(new Error(`waited for ${what}; got:\n${read()}`));
      }
    }, 100);
  });
}

async function startController(port = 0): Promise<TestController> {
  return startTestController({ dataDir, port });
}

beforeAll(async () => {
  tc = await startController();
  api = new Api(tc.url);
  await api.login('admin', ADMIN_PASSWORD);
  danaName = unique('dana');
  ids.dana = (
    await api.post(`${MGMT}/identities`, { name: danaName, type: 'User', isAdmin: false })
  ).body.data.id;
  ids.payroll = (await api.post(`${MGMT}/services`, { name: unique('Payroll') })).body.data.id;
  cli = await buildAdminCli(() => ({
    POSTERN_CONTROLLER_URL: tc.url,
    POSTERN_ADMIN_USERNAME: 'admin',
    POSTERN_ADMIN_PASSWORD: ADMIN_PASSWORD,
    POSTERN_CREDENTIAL_STORE: 'memory',
    POSTERN_TOTP_CODE: '',
  }));
});

afterAll(async () => {
  for (const f of followers) if (f.exitCode === null) f.kill('SIGKILL');
  cli?.dispose();
  await tc?.dispose();
  rmSync(outDir, { recursive: true, force: true });
});

describe('postern-admin audit', { timeout: 180_000 }, () => {
  it('lists events by identity, service, actor, type, time and reference', async () => {
    const [created] = await eventsOf(`identityId = "${ids.dana}" and type = "admin.created"`);
    expect(created).toBeDefined();

    const byName = ok(await admin('audit', 'list', '--identity', danaName)).stdout;
    expect(byName).toMatch(/^TIME\s+REF\s+TYPE\s+ACTOR\s+IDENTITY\s+SERVICE\s+WHAT/);
    expect(byName).toContain(created.reference);
    expect(byName).toContain(`created identity '${danaName}'`);

    const json = JSON.parse(
      ok(
        await admin(
          'audit',
          'list',
          '--identity',
          ids.dana,
          '--type',
          'admin.*',
          '--actor',
          'Default Admin',
          '--json',
        ),
      ).stdout,
    );
    expect(json.data.map((e: any) => e.id)).toContain(created.id);
    expect(json.data.every((e: any) => e.identityId === ids.dana && e.type.startsWith('admin.'))).toBe(true);

    const service = JSON.parse(ok(await admin('audit', 'list', '--service', ids.payroll, '--json')).stdout);
    expect(service.data.map((e: any) => e.type)).toEqual(['admin.created']);

    // A reference read over the phone: lower case, no dash, O for 0.
    const spoken = created.reference.replace('-', ' ').toLowerCase().replace(/0/g, 'o');
    const found = JSON.parse(ok(await admin('audit', 'list', '--reference', spoken, '--json')).stdout);
    expect(found.data.map((e: any) => e.id)).toContain(created.id);

    const recent = JSON.parse(
      ok(await admin('audit', 'list', '--identity', danaName, '--since', '1h', '--json')).stdout,
    );
    expect(recent.data.length).toBeGreaterThan(0);
    const old = ok(await admin('audit', 'list', '--identity', danaName, '--until', '1d')).stdout;
    expect(old.trim()).toBe('No audit events match the filter.');
    const none = ok(
      await admin('audit', 'list', '--type', 'access.refused,access.granted', '--identity', danaName),
    );
    expect(none.stdout.trim()).toBe('No audit events match the filter.');
  });

  it('refuses bad flags before signing in', async () => {
    const wrong = { POSTERN_ADMIN_PASSWORD: 'not-the-password' };
    const cases: [string[], string][] = [
      [['audit', 'list', '--since', 'yesterday'], '--since'],
      [['audit', 'list', '--type', 'DROP TABLE'], '--type'],
      [['audit', 'list', '--since', '1h', '--until', '2h'], '--since must be before --until'],
      [['audit', 'export'], '--format'],
      [['audit', 'export', '--format', 'xml'], '--format'],
      [['audit', 'list', '--output', 'x'], '--output'],
      [['audit', 'export', '--format', 'csv', '--follow'], '--follow'],
      [['identities', 'list', '--since', '1h'], '--since'],
      [['audit', 'purge'], "unknown verb 'purge'"],
    ];
    const runs = await Promise.all(cases.map(([args]) => cli.run(args, wrong)));
    runs.forEach((run, i) => expect(failed(run, 2)).toContain(cases[i]![1]));
  });

  it('exports a filtered range as CSV to a file and as JSON lines to standard output', async () => {
    const file = join(outDir, 'dana.csv');
    const wrote = ok(
      await admin('audit', 'export', '--format', 'csv', '--identity', danaName, '--output', file),
    );
    const rows = readFileSync(file, 'utf8').split('\r\n').filter(Boolean);
    expect(rows[0]).toBe('id,type,createdAt,actor,address,identityId,serviceId,reference,details');
    const expected = await eventsOf(`identityId = "${ids.dana}"`);
    expect(rows).toHaveLength(expected.length + 1);
    expect(wrote.stdout.trim()).toBe(`Wrote ${expected.length} events to ${file}.`);

    const lines = ok(await admin('audit', 'export', '--format', 'jsonl', '--service', ids.payroll))
      .stdout.split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines.map((e) => e.serviceId)).toEqual([ids.payroll]);
  });

  it('follows new events, each once, across a controller restart, until Ctrl-C', async () => {
    const follower = cli.start(['audit', 'list', '--identity', ids.dana, '--follow', '--json']);
    followers.push(follower);
    let stdout = '';
    let stderr = '';
    follower.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    follower.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const printed = () =>
      stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { id: string; type: string; details: any });
    const renamedTo = (name: string) =>
      waitFor(
        () => stdout,
        () => printed().find((e) => e.type === 'admin.updated' && e.details.after?.name === name),
        `the rename to ${name}`,
      );
    const before = (await eventsOf(`identityId = "${ids.dana}"`)).length;
    await waitFor(
      () => stdout,
      () => (printed().length >= before ? true : undefined),
      'the first events',
    );

    for (const n of [1, 2, 3]) {
      expect((await api.patch(`${MGMT}/identities/${ids.dana}`, { name: `${danaName}-${n}` })).status).toBe(
        200,
      );
      await renamedTo(`${danaName}-${n}`);
    }

    // The controller goes away and comes back on the same address and store.
    const port = Number(new URL(tc.url).port);
    await tc.close();
    await waitFor(
      () => stderr,
      (t) => (t.includes('lost the controller') ? true : undefined),
      'the lost line',
    );
    tc = await startController(port);
    api = new Api(tc.url);
    await api.login('admin', ADMIN_PASSWORD);
    expect((await api.patch(`${MGMT}/identities/${ids.dana}`, { name: `${danaName}-after` })).status).toBe(
      200,
    );
    await renamedTo(`${danaName}-after`);
    expect(stderr).toContain('answers again; following');

    const ids_ = printed().map((e) => e.id);
    expect(new Set(ids_).size).toBe(ids_.length);
    const all = await eventsOf(`identityId = "${ids.dana}"`);
    expect(ids_.sort()).toEqual(all.map((e) => e.id).sort());

    const exited = new Promise<number | null>((resolve) => follower.on('exit', (code) => resolve(code)));
    follower.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('follows in words: who did what to whom', async () => {
    const follower = cli.start(['audit', 'list', '--service', ids.payroll, '--follow']);
    followers.push(follower);
    let stdout = '';
    follower.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    await waitFor(
      () => stdout,
      (t) => (t.includes('Default Admin created service') ? true : undefined),
      'history',
    );
    expect((await api.patch(`${MGMT}/services/${ids.payroll}`, { roleAttributes: ['finance'] })).status).toBe(
      200,
    );
    const line = await waitFor(
      () => stdout,
      (t) => t.split('\n').find((l) => l.includes('changed service')),
      'the change',
    );
    expect(line).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {2}[0-9A-Z]{4}-[0-9A-Z]{2} {2}Default Admin changed service '.+' \(roleAttributes\)/,
    );
    const exited = new Promise<number | null>((resolve) => follower.on('exit', (code) => resolve(code)));
    follower.kill('SIGINT');
    expect(await exited).toBe(0);
  });
});
