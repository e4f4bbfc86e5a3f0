/**
 * The admin CLI's pieces that need no controller: reading the command line, building request bodies from
 * flags and --data, quoting names into filters, and the list table's paging line. The commands themselves
 * run against a real controller in test/integration/admin-cli.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/agent/cli/cli-args.js';
import { parseAdminArgs, refuseOptionsOutside } from '../../../src/admin/admin-args.js';
import { filterString } from '../../../src/admin/management-api.js';
import { listText } from '../../../src/admin/output.js';
import { buildBody } from '../../../src/admin/request-body.js';
import { findResource } from '../../../src/admin/resources.js';

const args = (...argv: string[]) => parseAdminArgs(argv, {});
const usage = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a usage error');
};

describe('admin command line', () => {
  it('reads noun, verb, words, repeated flags and the connection options', () => {
    const parsed = parseAdminArgs(
      [
        'identities',
        'create',
        'alice',
        '--role',
        'a',
        '--role',
        'b',
        '--admin',
        '--controller',
        'https://c:1280',
      ],
      { POSTERN_CREDENTIAL_STORE: 'file', POSTERN_CONTROLLER_URL: 'https://ignored' },
    );
    expect(parsed).toMatchObject({
      noun: 'identities',
      verb: 'create',
      words: ['alice'],
      fields: { role: ['a', 'b'], admin: true },
      connection: { controller: 'https://c:1280', credentialStore: 'file', insecure: false },
    });
    // an empty variable is no value
    expect(parseAdminArgs(['services', 'list'], { POSTERN_CONTROLLER_URL: '' }).connection.controller).toBe(
      undefined,
    );
  });

  it('refuses what it cannot use, naming it', () => {
    expect(usage(() => args('services', 'list', '--limit', 'ten'))).toBe(
      "--limit must be a whole number, got 'ten'",
    );
    expect(usage(() => args('x', '--data', '{}', '--file', 'f'))).toBe(
      'give the body with --data or --file, not both',
    );
    expect(usage(() => args('enroll', 'reissue', 'a', '--expires-in', '2 hours'))).toMatch(
      /^--expires-in must be/,
    );
    expect(usage(() => args('x', '--credential-store', 'vault'))).toMatch(
      /^--credential-store must be keyring/,
    );
    expect(usage(() => args('x', '--nope'))).toMatch(/nope/);
    expect(args('enroll', 'reissue', 'a', '--expires-in', '7d').expiresInMs).toBe(7 * 86_400_000);
  });

  it('refuses an option the verb does not take, instead of ignoring it', () => {
    expect(usage(() => refuseOptionsOutside(args('services', 'show', 'x', '--filter', 'a'), {}))).toBe(
      "--filter does not apply to 'services show'",
    );
    expect(usage(() => refuseOptionsOutside(args('services', 'list', '--cascade'), { list: true }))).toBe(
      "--cascade does not apply to 'services list'",
    );
    expect(() =>
      refuseOptionsOutside(args('enroll', 'reissue', 'a', '--ott'), { fields: ['ott'] }),
    ).not.toThrow();
  });
});

describe('request bodies', () => {
  const identities = findResource('identities')!;
  const checks = findResource('posture-check')!;

  it('sets the flags over --data, the name over both, and the defaults a create needs', async () => {
    const body = await buildBody(
      args(
        'identities',
        'create',
        'alice',
        '--role',
        'sales',
        '--updb',
        'alice',
        '--data',
        '{"name":"x","externalId":"e1","roleAttributes":["old"]}',
      ),
      identities,
      { name: 'alice' },
    );
    expect(body).toEqual({
      name: 'alice',
      externalId: 'e1',
      roleAttributes: ['sales'],
      enrollment: { updb: 'alice' },
      type: 'User',
      isAdmin: false,
    });
  });

  it('sends an update only what it was given, and refuses a flag the noun has no field for', async () => {
    expect(await buildBody(args('posture-checks', 'update', 'c', '--role', 'r'), checks, undefined)).toEqual({
      roleAttributes: ['r'],
    });
    await expect(
      buildBody(args('posture-checks', 'update', 'c', '--admin'), checks, undefined),
    ).rejects.toThrow('--admin does not apply to posture-checks');
    await expect(buildBody(args('posture-checks', 'update', 'c'), checks, undefined)).rejects.toThrow(
      /^nothing to send/,
    );
    await expect(buildBody(args('posture-checks', 'create', '--data', '[1]'), checks, {})).rejects.toThrow(
      '--data must be a JSON object',
    );
  });
});

describe('output', () => {
  it('quotes a name into the filter grammar', () => {
    expect(filterString('a "b" \\ c\n')).toBe('"a \\"b\\" \\\\ c\\n"');
  });

  it('tables a page and says where the next one starts', () => {
    const services = findResource('services')!;
    const page = {
      data: [{ id: 'id-2', name: 'crm', roleAttributes: ['sales'], configs: [] }],
      meta: { pagination: { limit: 1, offset: 1, totalCount: 3 } },
    };
    expect(listText(services, page, false)).toBe(
      ['NAME  ID    ROLES  CONFIGS', 'crm   id-2  sales', '(2–2 of 3; --offset 2 for the next)'].join('\n'),
    );
    expect(listText(services, { data: [], meta: {} }, true)).toBe('No services match the filter.');
  });

  it('creates each Postern posture type from its own flags, read from the descriptors', async () => {
    const checks = findResource('posture-check')!;
    const identities = findResource('identities')!;
    const body = (...argv: string[]) =>
      buildBody(args('posture-checks', 'create', 'n', ...argv), checks, { name: 'n' });
    expect(await body('--type', 'DISK_ENCRYPTION', '--all-volumes')).toEqual({
      typeId: 'DISK_ENCRYPTION',
      allVolumes: true,
      name: 'n',
    });
    expect(await body('--type', 'FIREWALL')).toEqual({ typeId: 'FIREWALL', name: 'n' });
    expect(await body('--type', 'SCREEN_LOCK', '--max-idle-minutes', '10')).toEqual({
      typeId: 'SCREEN_LOCK',
      maxIdleMinutes: 10,
      name: 'n',
    });
    // Not a number: sent as typed, for the controller to refuse naming the field.
    expect((await body('--type', 'SCREEN_LOCK', '--max-idle-minutes', 'ten')).maxIdleMinutes).toBe('ten');
    expect(await body('--type', 'AGENT_VERSION', '--versions', '>=1.4.0 <2')).toEqual({
      typeId: 'AGENT_VERSION',
      versions: '>=1.4.0 <2',
      name: 'n',
    });
    await expect(
      buildBody(args('services', 'create', 's', '--max-idle-minutes', '5'), identities, { name: 's' }),
    ).rejects.toThrow('posture check flags do not apply to identities');
    expect(
      usage(() => refuseOptionsOutside(args('posture-checks', 'list', '--all-volumes'), { list: true })),
    ).toBe("--all-volumes does not apply to 'posture-checks list'");
  });

  it('lists every posture check type and its flags in the help', async () => {
    const { USAGE } = await import('../../../src/admin/admin-args.js');
    for (const words of [
      'DISK_ENCRYPTION  Disk encryption (Postern)',
      '--max-idle-minutes V',
      'an integer from 1 to 1440; required',
      '--versions V',
      'typeId (OS, MAC, DOMAIN, PROCESS, PROCESS_MULTI, MFA, DISK_ENCRYPTION, FIREWALL, SCREEN_LOCK, AGENT_VERSION)',
    ])
      expect(USAGE).toContain(words);
  });
});
