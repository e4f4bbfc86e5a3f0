/**
 * The admin CLI as administrators and scripts run it, a child process per command (the bundled program, see
 * admin-cli-process.ts; one run goes through tsx as `npm run admin` does), against a real controller. What
 * a command did is checked through the management API itself, not only through the CLI's own output.
 * Commands that do not depend on each other run at once.
 */
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAdminCli, runNode, type AdminCli, type CliRun } from '../helpers/admin-cli-process.js';
import { Api, createUser, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, tempDir, type TestController } from '../helpers/controller.js';
import { enrollVerified, FakeClock } from '../helpers/mfa.js';
import { withoutProgress } from '../helpers/cli-progress.js';
import { startSlowController } from '../helpers/slow-controller.js';

const configDir = tempDir('postern-admin-cli-');
/** Most tests work through a session `login` kept here, as a CI job running many commands would. */
const KEPT = ['--credential-store', 'file', '--config-dir', join(configDir, 'kept')];
let tc: TestController;
let clock: FakeClock;
let api: Api;
let cli: AdminCli;

/** Signs in as the default admin from the environment, keeping no session, unless `env` says otherwise. */
const admin = (args: string[], env: Record<string, string> = {}, input = '') => cli.run(args, env, input);
/** Through the kept session. */
const kept = (...args: string[]) => cli.run([...args, ...KEPT]);

/** Succeeded, with nothing on standard error but the lines a slow controller earns (see cli-progress.ts). */
function ok(run: CliRun): CliRun {
  expect({ code: run.code, stderr: withoutProgress(run.stderr) }).toEqual({ code: 0, stderr: '' });
  return run;
}

/** Failed with `code` and exactly one line on standard error, besides a slow controller's (cli-progress.ts). */
function failed(run: CliRun, code: number): string {
  const stderr = withoutProgress(run.stderr).trim();
  expect({ code: run.code, lines: stderr.split('\n').length }).toEqual({ code, lines: 1 });
  return stderr;
}

/** The entity the management API holds under that name, or undefined. */
async function named(collection: string, name: string): Promise<any> {
  const res = await api.get(`${MGMT}/${collection}?filter=${encodeURIComponent(`name = "${name}"`)}`);
  expect(res.status).toBe(200);
  return res.body.data[0];
}

beforeAll(async () => {
  // a token lifetime of its own, so the CLI's reissue can be seen to keep the controller's
  tc = await startTestController({ enrollmentSeconds: 3 * 3600 });
  // codes come from a clock the test moves, so a login never reuses the step its enrollment used
  clock = new FakeClock(tc.ctx);
  api = new Api(tc.url);
  await api.login('admin', ADMIN_PASSWORD);
  cli = await buildAdminCli(() => ({
    POSTERN_CONTROLLER_URL: tc.url,
    POSTERN_ADMIN_USERNAME: 'admin',
    POSTERN_ADMIN_PASSWORD: ADMIN_PASSWORD,
    POSTERN_CREDENTIAL_STORE: 'memory',
    POSTERN_TOTP_CODE: '',
  }));
  ok(await kept('login'));
});

afterAll(async () => {
  cli?.dispose();
  await tc?.dispose();
  rmSync(configDir, { recursive: true, force: true });
});

interface NounCase {
  noun: string;
  collection: string;
  singular: string;
  create: string[];
  /** what the API shows after the create */
  created: Record<string, unknown>;
  update: string[];
  /** what the API shows after the update; `created` fields not named here must be unchanged */
  updated: Record<string, unknown>;
}

const HOST = (port: number) => JSON.stringify({ data: { protocol: 'tcp', address: '127.0.0.1', port } });
const NOUNS: NounCase[] = [
  {
    noun: 'identities',
    collection: 'identities',
    singular: 'identity',
    create: ['--role', 'm', '--data', '{"externalId":"e-1"}'],
    created: { typeId: 'User', isAdmin: false, roleAttributes: ['m'], externalId: 'e-1' },
    update: ['--role', 'n', '--role', 'o'],
    updated: { roleAttributes: ['n', 'o'] },
  },
  {
    noun: 'services',
    collection: 'services',
    singular: 'service',
    create: ['--role', 'm'],
    created: { roleAttributes: ['m'], encryptionRequired: true },
    update: ['--data', '{"encryptionRequired":false}'],
    updated: { encryptionRequired: false },
  },
  {
    noun: 'policies',
    collection: 'service-policies',
    singular: 'service policy',
    create: ['--identity-role', '#m', '--service-role', '#m'],
    created: { type: 'Dial', semantic: 'AllOf', identityRoles: ['#m'], serviceRoles: ['#m'] },
    update: ['--semantic', 'AnyOf'],
    updated: { semantic: 'AnyOf' },
  },
  {
    noun: 'posture-checks',
    collection: 'posture-checks',
    singular: 'posture check',
    create: ['--type', 'DOMAIN', '--data', '{"domains":["corp.example"]}'],
    created: { typeId: 'DOMAIN', domains: ['corp.example'] },
    update: ['--data', '{"domains":["other.example"]}'],
    updated: { domains: ['other.example'] },
  },
  {
    noun: 'configs',
    collection: 'configs',
    singular: 'config',
    create: ['--type', 'host.v1', '--data', HOST(8080)],
    created: { data: { protocol: 'tcp', address: '127.0.0.1', port: 8080 } },
    update: ['--data', HOST(9090)],
    updated: { data: { protocol: 'tcp', address: '127.0.0.1', port: 9090 } },
  },
  {
    noun: 'config-types',
    collection: 'config-types',
    singular: 'config type',
    create: ['--data', '{"schema":{"type":"object"}}'],
    created: { schema: { type: 'object' }, target: 'service' },
    update: ['--data', '{"target":"router"}'],
    updated: { target: 'router' },
  },
  {
    noun: 'routers',
    collection: 'edge-routers',
    singular: 'edge router',
    create: ['--role', 'm'],
    created: { roleAttributes: ['m'], isVerified: false },
    update: ['--role', 'n'],
    updated: { roleAttributes: ['n'] },
  },
  {
    noun: 'edge-router-policies',
    collection: 'edge-router-policies',
    singular: 'edge router policy',
    create: ['--identity-role', '#m', '--router-role', '#m'],
    created: { semantic: 'AnyOf', identityRoles: ['#m'], edgeRouterRoles: ['#m'] },
    update: ['--semantic', 'AllOf'],
    updated: { semantic: 'AllOf' },
  },
  {
    noun: 'service-edge-router-policies',
    collection: 'service-edge-router-policies',
    singular: 'service edge router policy',
    create: ['--service-role', '#m', '--router-role', '#all'],
    created: { serviceRoles: ['#m'], edgeRouterRoles: ['#all'] },
    update: ['--router-role', '#m'],
    updated: { edgeRouterRoles: ['#m'] },
  },
];

// Dozens of short processes: generous limits for a machine busy with other work, not the usual duration.
describe('postern-admin', { timeout: 120_000 }, () => {
  it('creates, lists, shows, updates and deletes every noun', async () => {
    const name = (c: NounCase) => `m-${c.noun}`;
    const creates = await Promise.all(NOUNS.map((c) => kept(c.noun, 'create', name(c), ...c.create)));
    const ids: string[] = [];
    for (const [i, c] of NOUNS.entries()) {
      const entity = await named(c.collection, name(c));
      expect(entity, c.noun).toMatchObject(c.created);
      expect(ok(creates[i]!).stdout.split('\n')[0]).toBe(
        `Created ${c.singular} '${name(c)}' (${entity.id}).`,
      );
      ids.push(entity.id);
    }

    // list as a table (one row per entity: name, id, the noun's columns); show by name or by id, in --json
    const filter = (c: NounCase) => `name = "${name(c)}"`;
    const lists = await Promise.all(NOUNS.map((c) => kept(c.noun, 'list', '--filter', filter(c))));
    const shows = await Promise.all(
      NOUNS.map((c, i) => kept(c.noun, 'show', i % 2 ? ids[i]! : name(c), '--json')),
    );
    for (const [i, c] of NOUNS.entries()) {
      const [header, row, more] = ok(lists[i]!).stdout.trimEnd().split('\n');
      expect(header, c.noun).toMatch(/^NAME +ID +\S/);
      expect(row, c.noun).toMatch(new RegExp(`^${name(c)} +${ids[i]}\\b`));
      expect(more, c.noun).toBeUndefined();
      const detail = (await api.get(`${MGMT}/${c.collection}/${ids[i]}`)).body.data;
      expect(JSON.parse(ok(shows[i]!).stdout), c.noun).toEqual(detail);
    }

    // update changes the fields given and nothing else; --json answers the entity as it now is
    const updates = await Promise.all(
      NOUNS.map((c) => kept(c.noun, 'update', name(c), ...c.update, '--json')),
    );
    for (const [i, c] of NOUNS.entries()) {
      const expected = { ...c.created, ...c.updated };
      expect(await named(c.collection, name(c)), c.noun).toMatchObject(expected);
      expect(JSON.parse(ok(updates[i]!).stdout), c.noun).toMatchObject({ id: ids[i], ...expected });
    }

    const deletes = await Promise.all(NOUNS.map((c, i) => kept(c.noun, 'delete', i % 2 ? name(c) : ids[i]!)));
    for (const [i, c] of NOUNS.entries()) {
      expect(ok(deletes[i]!).stdout.trim()).toBe(`Deleted ${c.singular} '${name(c)}' (${ids[i]}).`);
      expect((await api.get(`${MGMT}/${c.collection}/${ids[i]}`)).status, c.noun).toBe(404);
    }
  });

  it('builds bodies from flags, --file and names, shows @id roles by name, and a create answer shown once', async () => {
    const hostFile = join(configDir, 'crm-host.json');
    writeFileSync(hostFile, HOST(8080));
    const [config, identity, check, router] = await Promise.all([
      kept('configs', 'create', 'crm-host', '--type', 'host.v1', '--file', hostFile),
      kept('identities', 'create', 'alice', '--role', 'sales', '--role', 'eu', '--admin'),
      kept(
        'posture-checks',
        'create',
        '--data',
        '{"name":"mac-check","typeId":"MAC","macAddresses":["aa:bb:cc:dd:ee:ff"]}',
      ),
      kept('routers', 'create', 'edge-1', '--json'),
    ]);
    [config, identity, check].forEach(ok);
    expect(await named('identities', 'alice')).toMatchObject({
      isAdmin: true,
      roleAttributes: ['sales', 'eu'],
    });
    expect(await named('posture-checks', 'mac-check')).toMatchObject({ typeId: 'MAC' });
    const hostConfig = await named('configs', 'crm-host');
    expect(hostConfig.data).toEqual({ protocol: 'tcp', address: '127.0.0.1', port: 8080 });
    // what a create answers only once (the router's enrollment token) is printed whole
    const created = JSON.parse(ok(router).stdout);
    expect(created.id).toBe((await named('edge-routers', 'edge-1')).id);
    expect(created.enrollmentToken).toMatch(/^[0-9a-f]{64}$/);

    // a config and @roles by name: the controller resolves them to ids
    ok(await kept('services', 'create', 'crm', '--role', 'sales', '--config', 'crm-host'));
    expect((await named('services', 'crm')).configs).toEqual([hostConfig.id]);
    ok(
      await kept(
        'policies',
        'create',
        'crm-dial',
        '--identity-role',
        '@alice',
        '--service-role',
        '@crm',
        '--posture-check-role',
        '@mac-check',
      ),
    );
    const alice = await named('identities', 'alice');
    expect((await named('service-policies', 'crm-dial')).identityRoles).toEqual([`@${alice.id}`]);
    const [policies, identities, reEnrolled] = await Promise.all([
      kept('policies', 'list'),
      kept('identities', 'list'),
      kept('routers', 're-enroll', 'edge-1', '--json'),
    ]);
    expect(ok(policies).stdout).toMatch(/^NAME +ID +TYPE +SEMANTIC +IDENTITIES +SERVICES +POSTURE CHECKS$/m);
    expect(policies.stdout).toMatch(/^crm-dial +\S+ +Dial +AllOf +@alice +@crm +@mac-check$/m);
    expect(ok(identities).stdout).toMatch(new RegExp(`^alice +${alice.id} +User +yes +no +sales, eu$`, 'm'));
    const token = JSON.parse(ok(reEnrolled).stdout).enrollmentToken;
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(token).not.toBe(created.enrollmentToken);
  });

  it('passes filter and paging through, and a list --json is the API list envelope', async () => {
    const [page, byRole, badFilter] = await Promise.all([
      kept('identities', 'list', '--json', '--limit', '1', '--offset', '1', '--filter', 'sort by name'),
      kept('identities', 'list', '--json', '--filter', 'anyOf(roleAttributes) = "eu"'),
      kept('identities', 'list', '--filter', 'name contains'),
    ]);
    const listed = JSON.parse(ok(page).stdout);
    expect(Object.keys(listed).sort()).toEqual(['data', 'meta']);
    // sorted by name: Default Admin, alice (uppercase first), ...
    expect(listed.data.map((i: any) => i.name)).toEqual(['alice']);
    expect(listed.meta.pagination).toEqual({ limit: 1, offset: 1, totalCount: 2 });
    expect(JSON.parse(ok(byRole).stdout).data.map((i: any) => i.name)).toEqual(['alice']);
    expect(failed(badFilter, 1)).toMatch(/^postern-admin: the controller refused filter: at position 14: /);
  });

  it('says in one line which field the controller refused, what a 409 needs, and what was mistyped', async () => {
    const [invalid, referenced, unknown, misplaced] = await Promise.all([
      kept(
        'posture-checks',
        'create',
        'bad-os',
        '--type',
        'OS',
        '--data',
        '{"operatingSystems":[{"type":"Linux","versions":["nope"]}]}',
      ),
      kept('posture-checks', 'delete', 'mac-check'),
      kept('services', 'show', 'no-such-service'),
      kept('services', 'list', '--role', 'x'),
    ]);
    expect(failed(invalid, 1)).toMatch(
      /^postern-admin: the controller refused operatingSystems\[0\]\.versions\[0\]: .*"nope"/,
    );
    expect(failed(referenced, 1)).toMatch(
      /^postern-admin: cannot delete posture check 'mac-check' \(\S+\): the service policy 'crm-dial' names it; .* --cascade/,
    );
    expect(await named('posture-checks', 'mac-check')).toBeDefined();
    expect(failed(unknown, 1)).toBe("postern-admin: no service with the id or name 'no-such-service'");
    expect(failed(misplaced, 2)).toBe("postern-admin: --role does not apply to 'services list' (see --help)");

    // --cascade deletes it and takes it out of the policy
    const check = await named('posture-checks', 'mac-check');
    const cascaded = await kept('posture-checks', 'delete', 'mac-check', '--cascade', '--json');
    expect(JSON.parse(ok(cascaded).stdout)).toEqual({ id: check.id, name: 'mac-check' });
    expect(await named('posture-checks', 'mac-check')).toBeUndefined();
    expect((await named('service-policies', 'crm-dial')).postureCheckRoles).toEqual([]);
  });

  it('refuses bad credentials, users and transports with the agent exit codes, leaving no session behind', async () => {
    await createUser(api, 'bob-user', 'bob-password');
    const adminId = (await named('identities', 'Default Admin')).id;
    const sessionsBefore = (await tc.ctx.store.apiSessions.listByIdentity(adminId)).length;
    const [wrong, user, none, down, plain] = await Promise.all([
      admin(['services', 'list'], { POSTERN_ADMIN_PASSWORD: 'not-the-password' }),
      admin(['services', 'list'], {
        POSTERN_ADMIN_USERNAME: 'bob-user',
        POSTERN_ADMIN_PASSWORD: 'bob-password',
      }),
      admin(['services', 'list'], { POSTERN_ADMIN_PASSWORD: '' }),
      admin(['services', 'list', '--controller', 'http://127.0.0.1:9']),
      admin(['services', 'list', '--controller', 'http://0.0.0.0:9']),
    ]);
    expect(failed(wrong, 4)).toBe('postern-admin: wrong username or password');
    expect(failed(user, 4)).toBe(
      "postern-admin: 'bob-user' is not an administrator; the management API is for administrators only",
    );
    // asked for on standard error, with standard input empty
    expect(none.code).toBe(4);
    expect(withoutProgress(none.stderr)).toMatch(
      /^Password: \npostern-admin: not signed in: set POSTERN_ADMIN_USERNAME/,
    );
    expect(failed(down, 3)).toBe(
      'postern-admin: cannot reach the controller at http://127.0.0.1:9 (ECONNREFUSED)',
    );
    expect(failed(plain, 1)).toMatch(
      /^postern-admin: refusing plain http:\/\/ to 0\.0\.0\.0:9: .*--insecure/,
    );
    // a command that signs in itself ends its session when done
    expect(ok(await admin(['identities', 'list'])).stdout).toContain('bob-user');
    expect(await tc.ctx.store.apiSessions.listByIdentity(adminId)).toHaveLength(sessionsBefore);
    const bobId = (await named('identities', 'bob-user')).id;
    expect(await tc.ctx.store.apiSessions.listByIdentity(bobId)).toHaveLength(0);
  });

  it('gives the authenticator code an administrator login owes from POSTERN_TOTP_CODE', async () => {
    const mfaAdmin = await createUser(api, 'mfa-admin', 'mfa-admin-password', { isAdmin: true });
    const own = new Api(tc.url);
    expect((await own.login('mfa-admin', 'mfa-admin-password')).status).toBe(200);
    const { app } = await enrollVerified(own, clock);
    clock.nextStep();
    const env = { POSTERN_ADMIN_USERNAME: 'mfa-admin', POSTERN_ADMIN_PASSWORD: 'mfa-admin-password' };
    const [withCode, withoutCode, wrongCode] = await Promise.all([
      admin(['identities', 'show', 'mfa-admin', '--json'], {
        ...env,
        POSTERN_TOTP_CODE: await app.code(clock.now()),
      }),
      admin(['identities', 'list'], env),
      admin(['identities', 'list'], { ...env, POSTERN_TOTP_CODE: '000000' }),
    ]);
    expect(JSON.parse(ok(withCode).stdout)).toMatchObject({ id: mfaAdmin, isMfaEnabled: true });
    expect(withoutCode.code).toBe(5);
    expect(withoutProgress(withoutCode.stderr)).toMatch(
      /\npostern-admin: this login needs an authenticator code: set POSTERN_TOTP_CODE or enter one when asked\n$/,
    );
    expect(failed(wrongCode, 5)).toBe(
      'postern-admin: wrong code: enter the current code from your authenticator app',
    );
  });

  it('login keeps the session in a 0600 file for later commands; logout ends and forgets it', async () => {
    const store = ['--credential-store', 'file', '--config-dir', join(configDir, 'own')];
    const nothingGiven = { POSTERN_ADMIN_PASSWORD: '', POSTERN_CONTROLLER_URL: '' };
    expect(ok(await admin(['login', ...store])).stdout).toContain(`Signed in to ${tc.url} as admin.`);
    const file = join(configDir, 'own', 'admin-session.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(ADMIN_PASSWORD);
    const session = JSON.parse(JSON.parse(text)['admin-session']);
    expect(session).toEqual({ controllerUrl: tc.url, token: expect.any(String), username: 'admin' });

    // neither password nor controller given: the kept session supplies both
    expect(ok(await admin(['config-types', 'list', ...store], nothingGiven)).stdout).toMatch(/^host\.v1 /m);
    expect(ok(await admin(['logout', ...store], nothingGiven)).stdout).toContain(`Signed out of ${tc.url}`);
    expect((await api.as(session.token).get(`${MGMT}/current-api-session`)).status).toBe(401);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({});
    const signedOut = await admin(['services', 'list', ...store], { POSTERN_ADMIN_PASSWORD: '' });
    expect(signedOut.code).toBe(4);
    expect(withoutProgress(signedOut.stderr)).toMatch(/^postern-admin: not signed in: /m);
  });

  it('enroll: the outstanding token and a new one, or one line where the controller has no enrollments', async () => {
    const carol = (await api.post(`${MGMT}/identities`, { name: 'carol', type: 'User', isAdmin: false })).body
      .data.id as string;
    if ((await api.get(`${MGMT}/enrollments?limit=1`)).status === 404) {
      const runs = await Promise.all([kept('enroll', 'show', 'carol'), kept('enroll', 'reissue', 'carol')]);
      for (const run of runs)
        expect(failed(run, 1)).toBe(
          'postern-admin: this controller does not support enrollments (it has no /edge/management/v1/enrollments)',
        );
      return;
    }
    // the controller's clock (which this file moves), not this process's
    const controllerNow = () => tc.ctx.clock.now().getTime();
    const issuing = controllerNow();
    const issued = JSON.parse(ok(await kept('enroll', 'reissue', 'carol', '--ott', '--json')).stdout);
    expect(issued).toMatchObject({ method: 'ott', id: expect.any(String), token: expect.any(String) });
    // No --expires-in: the controller's lifetime (3 hours here), not one the CLI picks.
    expect(Date.parse(issued.expiresAt)).toBeGreaterThanOrEqual(issuing + 3 * 3_600_000);
    expect(Date.parse(issued.expiresAt)).toBeLessThanOrEqual(controllerNow() + 3 * 3_600_000);
    const shown = JSON.parse(ok(await kept('enroll', 'show', carol, '--json')).stdout);
    expect(shown.ott).toMatchObject({ id: issued.id, token: issued.token });
    const before = Date.now();
    const refreshed = JSON.parse(
      ok(await kept('enroll', 'reissue', 'carol', '--expires-in', '2h', '--json')).stdout,
    );
    expect(refreshed).toMatchObject({ method: 'ott', id: issued.id });
    expect(refreshed.token).not.toBe(issued.token);
    const expires = Date.parse(refreshed.expiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + 2 * 3_600_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 2 * 3_600_000 + 1000);
  });

  it('enroll reissue on an identity that already has that login names the command that removes it', async () => {
    const erin = (await api.post(`${MGMT}/identities`, { name: 'erin', type: 'User', isAdmin: false })).body
      .data.id as string;
    const login = await api.post(`${MGMT}/authenticators`, {
      method: 'updb',
      identityId: erin,
      username: 'erin-login',
      password: 'erin-password',
    });
    expect(login.status, JSON.stringify(login.body)).toBe(201);
    const loginId = login.body.data.id as string;
    expect(failed(await kept('enroll', 'reissue', 'erin', '--updb', 'erin-new'), 1)).toBe(
      `postern-admin: the identity 'erin' (${erin}) already has a password login; to enroll it again, remove ` +
        `that first: npm run admin -- authenticators delete ${loginId}`,
    );
    expect(ok(await kept('authenticators', 'list')).stdout).toMatch(
      new RegExp(`^ +${loginId} +updb +erin +erin-login`, 'm'),
    );
    expect(ok(await kept('authenticators', 'delete', loginId)).stdout).toBe(
      `Deleted authenticator '${loginId}' (${loginId}).\n`,
    );
    const issued = JSON.parse(
      ok(await kept('enroll', 'reissue', 'erin', '--updb', 'erin-new', '--json')).stdout,
    );
    expect(issued).toMatchObject({ method: 'updb', username: 'erin-new' });
  });

  it('names a controller slow to answer once, with the address tried, as the agent does', async () => {
    // Every request is answered after 4 s, twice the 2 s after which the line is due, with a 503 the client
    // tries again: the line is said during the first wait and not again.
    const slow = await startSlowController(4_000);
    try {
      const run = await admin(['services', 'list', '--controller', slow.url]);
      expect(slow.requests).toBeGreaterThan(1);
      const said = run.stderr
        .split('\n')
        .filter((line) => line === `postern-admin warning: still waiting for the controller at ${slow.url}`);
      expect(said, run.stderr).toHaveLength(1);
      // withoutProgress takes out exactly that line: the failure is the one line left
      expect(failed(run, 1)).toBe('postern-admin: the controller answered SERVER_BUSY: slow on purpose');
    } finally {
      await slow.close();
    }
  });

  it('runs as `npm run admin` runs it, through tsx', async () => {
    const run = await runNode(['--import', 'tsx', 'src/admin/cli.ts', '--help'], {
      cwd: join(import.meta.dirname, '..', '..'),
    });
    expect(ok(run).stdout).toMatch(/^Usage: postern-admin <noun> <verb>/);
  });
});
