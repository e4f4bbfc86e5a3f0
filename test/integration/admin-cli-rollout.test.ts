/**
 * The admin CLI's staged-enforcement commands against a real controller, a child process per command: a
 * check's enforcement flags, an exception granted by names and its history, and the preview of a new check
 * over posture data a device reported. What a command did is checked through the management API too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAdminCli, type AdminCli, type CliRun } from '../helpers/admin-cli-process.js';
import { Api, CLIENT, MGMT, createUser } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';
import { withoutProgress } from '../helpers/cli-progress.js';

let tc: TestController;
let api: Api;
let cli: AdminCli;
const ids = { baseline: '', laptop: '' };

const admin = (...args: string[]) => cli.run(args);

function ok(run: CliRun): CliRun {
  expect({ code: run.code, stderr: withoutProgress(run.stderr) }).toEqual({ code: 0, stderr: '' });
  return run;
}

const osCheck = (name: string, roleAttributes: string[], versions: string[]) => ({
  typeId: 'OS',
  name,
  roleAttributes,
  operatingSystems: [{ type: 'Linux', versions }],
});

beforeAll(async () => {
  tc = await startTestController();
  api = new Api(tc.url);
  await api.login('admin', ADMIN_PASSWORD);
  cli = await buildAdminCli(() => ({
    POSTERN_CONTROLLER_URL: tc.url,
    POSTERN_ADMIN_USERNAME: 'admin',
    POSTERN_ADMIN_PASSWORD: ADMIN_PASSWORD,
    POSTERN_CREDENTIAL_STORE: 'memory',
    POSTERN_TOTP_CODE: '',
  }));
  // Payroll behind the #payroll-os checks; a #staff laptop that reported Linux 5.4.0 for a baseline check.
  const payroll = (await api.post(`${MGMT}/services`, { name: 'Payroll' })).body.data.id as string;
  ids.baseline = (await api.post(`${MGMT}/posture-checks`, osCheck('linux-any', ['baseline'], ['>=1.0.0'])))
    .body.data.id as string;
  await api.post(`${MGMT}/service-policies`, {
    name: 'staff-payroll',
    type: 'Dial',
    semantic: 'AllOf',
    identityRoles: ['#staff'],
    serviceRoles: [`@${payroll}`],
    postureCheckRoles: ['#payroll-os'],
  });
  ids.laptop = await createUser(api, 'old-laptop', 'old-laptop-password', { roleAttributes: ['staff'] });
  const device = new Api(tc.url);
  await device.login('old-laptop', 'old-laptop-password', CLIENT);
  const reported = await device.post(`${CLIENT}/posture-response`, {
    id: ids.baseline,
    typeId: 'OS',
    type: 'Linux',
    version: '5.4.0',
  });
  expect(reported.status).toBe(201);
});

afterAll(async () => {
  cli?.dispose();
  await tc?.dispose();
});

describe('postern-admin staged enforcement', { timeout: 120_000 }, () => {
  it('previews a new check: whom it would block from what, and why, changing nothing', async () => {
    const body = JSON.stringify({ operatingSystems: [{ type: 'Linux', versions: ['>=6.0.0'] }] });
    const text = ok(
      await admin(
        'checks',
        'preview',
        'create',
        'linux-6',
        '--type',
        'OS',
        '--role',
        'payroll-os',
        '--data',
        body,
      ),
    ).stdout;
    expect(text).toContain('This blocks 1 device from 1 service.');
    expect(text).toMatch(/old-laptop\s+Payroll\s+linux-6\s+.*5\.4\.0/);
    const json = JSON.parse(
      ok(
        await admin(
          'checks',
          'preview',
          'create',
          'linux-6',
          '--type',
          'OS',
          '--role',
          'payroll-os',
          '--data',
          body,
          '--json',
        ),
      ).stdout,
    );
    expect(json).toMatchObject({
      newlyRefusedCount: 1,
      identitiesRefused: 1,
      servicesRefused: 1,
      newlyGrantedCount: 0,
    });
    expect(json.newlyRefused[0]).toMatchObject({ identityId: ids.laptop, serviceName: 'Payroll' });
    const stored = await api.get(`${MGMT}/posture-checks?filter=${encodeURIComponent('name = "linux-6"')}`);
    expect(stored.body.data).toEqual([]);
  });

  it('creates a check report-only, then makes it a warning with a deadline', async () => {
    const body = JSON.stringify({ operatingSystems: [{ type: 'Linux', versions: ['>=6.0.0'] }] });
    ok(
      await admin(
        'checks',
        'create',
        'linux-6-soon',
        '--type',
        'OS',
        '--enforcement-mode',
        'report-only',
        '--data',
        body,
      ),
    );
    const created = await api.get(
      `${MGMT}/posture-checks?filter=${encodeURIComponent('name = "linux-6-soon"')}`,
    );
    expect(created.body.data[0].enforcement).toEqual({ mode: 'report-only', enforceFrom: null });
    const deadline = new Date(Date.now() + 14 * 86_400_000).toISOString();
    ok(await admin('checks', 'update', 'linux-6-soon', '--enforce-from', deadline));
    const warned = await api.get(`${MGMT}/posture-checks/${created.body.data[0].id}`);
    expect(warned.body.data.enforcement.mode).toBe('warn');
    expect(Date.parse(warned.body.data.enforcement.enforceFrom)).toBe(Date.parse(deadline));
    const list = ok(await admin('checks', 'list', '--filter', 'name = "linux-6-soon"')).stdout;
    expect(list).toContain(`warn until`);
  });

  it('grants an exception by names, lists it, shows its history and deletes it', async () => {
    const created = JSON.parse(
      ok(
        await admin(
          'exceptions',
          'create',
          '--identity',
          'old-laptop',
          '--check',
          'linux-any',
          '--reason',
          'new laptop on order',
          '--json',
        ),
      ).stdout,
    );
    const stored = (await api.get(`${MGMT}/posture-check-exceptions/${created.id}`)).body.data;
    expect(stored).toMatchObject({
      identityId: ids.laptop,
      postureCheckId: ids.baseline,
      reason: 'new laptop on order',
      state: 'active',
    });
    // a week unless told
    const week = Date.parse(stored.expiresAt) - Date.parse(stored.createdAt);
    expect(Math.abs(week - 7 * 86_400_000)).toBeLessThan(10 * 60_000);
    const list = ok(await admin('exceptions', 'list')).stdout;
    // the table names the identity and the check; --json keeps the API's ids
    expect(list).toMatch(new RegExp(`${created.id}\\s+old-laptop\\s+linux-any`));
    const listed = JSON.parse(ok(await admin('exceptions', 'list', '--json')).stdout);
    expect(listed.data[0]).toMatchObject({ identityId: ids.laptop, postureCheckId: ids.baseline });
    const history = ok(await admin('exceptions', 'history', created.id)).stdout;
    expect(history).toMatch(/granted\s+Default Admin/);
    ok(await admin('exceptions', 'delete', created.id));
    expect((await api.get(`${MGMT}/posture-check-exceptions/${created.id}`)).status).toBe(404);
  });
});
