/**
 * The admin CLI's staged-enforcement pieces that need no controller: a posture check's enforcement flags, an
 * exception's flags and defaults, the verbs only some nouns take, and the text of a preview and a history.
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/agent/cli/cli-args.js';
import { parseAdminArgs } from '../../../src/admin/admin-args.js';
import type { AdminContext } from '../../../src/admin/admin-session.js';
import { listText } from '../../../src/admin/output.js';
import { buildBody } from '../../../src/admin/request-body.js';
import { resourceCommand } from '../../../src/admin/resource-commands.js';
import { findResource } from '../../../src/admin/resources.js';
import { historyText, previewText } from '../../../src/admin/rollout-commands.js';

const args = (...argv: string[]) => parseAdminArgs(argv, {});
const checks = findResource('posture-checks')!;
const exceptions = findResource('exceptions')!;
const DAY = 86_400_000;

/** A command that must stop at its arguments: any use of the session would throw here. */
async function usageOf(...argv: string[]): Promise<string> {
  const parsed = args(...argv);
  const ctx = { args: parsed, env: {}, print: () => undefined } as unknown as AdminContext;
  const error = await resourceCommand(ctx, findResource(parsed.noun)!).then(
    () => new Error('expected a usage error'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UsageError);
  return (error as Error).message;
}

describe('posture check enforcement flags', () => {
  it('sends the mode, with a deadline only when one was given', async () => {
    expect(
      await buildBody(args('checks', 'update', 'c', '--enforcement-mode', 'report-only'), checks, undefined),
    ).toEqual({ enforcement: { mode: 'report-only', enforceFrom: null } });
    expect(
      await buildBody(
        args(
          'checks',
          'create',
          'os',
          '--type',
          'OS',
          '--enforcement-mode',
          'warn',
          '--enforce-from',
          '2026-03-03T09:00:00Z',
        ),
        checks,
        { name: 'os' },
      ),
    ).toMatchObject({
      name: 'os',
      typeId: 'OS',
      enforcement: { mode: 'warn', enforceFrom: '2026-03-03T09:00:00Z' },
    });
  });

  it('reads --enforce-from alone as a warning until then, and leaves a wrong pairing for the API to name', async () => {
    expect(
      await buildBody(
        args('checks', 'update', 'c', '--enforce-from', '2026-03-03T09:00:00Z'),
        checks,
        undefined,
      ),
    ).toEqual({
      enforcement: { mode: 'warn', enforceFrom: '2026-03-03T09:00:00Z' },
    });
    // enforce with a deadline is the API's 400 naming enforcement.enforceFrom, not silently dropped here
    expect(
      await buildBody(
        args('checks', 'update', 'c', '--enforcement-mode', 'enforce', '--enforce-from', 'tomorrow'),
        checks,
        undefined,
      ),
    ).toEqual({ enforcement: { mode: 'enforce', enforceFrom: 'tomorrow' } });
  });
});

describe('exception flags', () => {
  it('creates for one identity and one check, expiring in a week unless told', async () => {
    const before = Date.now();
    const body = await buildBody(
      args(
        'exceptions',
        'create',
        '--identity',
        'alice',
        '--check',
        'os-14',
        '--reason',
        'new laptop on order',
      ),
      exceptions,
      {},
    );
    expect(body).toMatchObject({
      identityId: 'alice',
      postureCheckId: 'os-14',
      reason: 'new laptop on order',
    });
    const expires = Date.parse(body.expiresAt as string);
    expect(expires).toBeGreaterThanOrEqual(before + 7 * DAY);
    expect(expires).toBeLessThanOrEqual(Date.now() + 7 * DAY);
  });

  it('takes every check, roles, and an expiry from now or at a time', async () => {
    const body = await buildBody(
      args(
        'exceptions',
        'create',
        '--identity-role',
        '#contractors',
        '--all-checks',
        '--expires-in',
        '30d',
        '--reason',
        'r',
      ),
      exceptions,
      {},
    );
    expect(body).toMatchObject({ identityRoles: ['#contractors'], postureCheckId: null });
    expect(Date.parse(body.expiresAt as string)).toBeGreaterThan(Date.now() + 29 * DAY);
    expect(
      await buildBody(
        args('exceptions', 'update', 'e1', '--expires-at', '2026-12-01T00:00:00Z'),
        exceptions,
        undefined,
      ),
    ).toEqual({ expiresAt: '2026-12-01T00:00:00Z' });
  });

  it('refuses a create that does not say which check, and contradictory flags', async () => {
    await expect(
      buildBody(args('exceptions', 'create', '--identity', 'a', '--reason', 'r'), exceptions, {}),
    ).rejects.toThrow('say which check: --check ID-OR-NAME, or --all-checks for every check');
    await expect(
      buildBody(args('exceptions', 'create', '--check', 'c', '--all-checks'), exceptions, {}),
    ).rejects.toThrow('give --check or --all-checks, not both');
    await expect(
      buildBody(
        args('exceptions', 'update', 'e', '--expires-in', '1d', '--expires-at', 'x'),
        exceptions,
        undefined,
      ),
    ).rejects.toThrow('give --expires-at or --expires-in, not both');
    await expect(
      buildBody(args('identities', 'create', 'a', '--reason', 'r'), findResource('identities')!, {}),
    ).rejects.toThrow('--reason does not apply to identities');
  });

  it('takes --expires-in on exceptions only, and preview and history where they apply', async () => {
    expect(await usageOf('identities', 'create', 'a', '--expires-in', '7d')).toBe(
      "--expires-in does not apply to 'identities create'",
    );
    expect(await usageOf('exceptions', 'history')).toBe("'exceptions history' needs an id or name");
    expect(await usageOf('exceptions', 'preview', 'create')).toMatch(
      /^unknown verb 'preview' for posture-check-exceptions; use list, show, create, update, delete, history$/,
    );
    expect(await usageOf('services', 'history', 'x')).toMatch(/^unknown verb 'history' for services/);
    expect(await usageOf('checks', 'preview')).toBe(
      "'posture-checks preview' needs what to preview: create, update or delete",
    );
    expect(await usageOf('policies', 'preview', 'update')).toBe(
      "'policies preview update' needs an id or name",
    );
    expect(await usageOf('policies', 'preview', 'delete', 'p', '--semantic', 'AnyOf')).toBe(
      "--semantic does not apply to 'policies preview delete'",
    );
  });
});

describe('rollout output', () => {
  type Reason = { postureCheckName: string; actualValue: unknown; expectedValue: unknown; reason: string };
  const item = (identityName: string, serviceName: string, reasons: Reason[] = []) => ({
    identityId: `id-${identityName}`,
    identityName,
    serviceId: `sv-${serviceName}`,
    serviceName,
    reasons,
  });

  it('prints a preview: the headline, who is refused and why, who is let in, and what was left out', () => {
    const text = previewText({
      newlyRefused: [
        item('alice', 'payroll', [
          {
            postureCheckName: 'os-14',
            actualValue: { type: 'macOS', version: '13.6' },
            expectedValue: '>=14.4.0',
            reason: 'version too old',
          },
        ]),
      ],
      newlyGranted: [item('bob', 'wiki')],
      newlyRefusedCount: 3,
      newlyGrantedCount: 1,
      identitiesRefused: 3,
      servicesRefused: 1,
    });
    expect(text).toBe(
      [
        'This blocks 3 devices from 1 service, and lets 1 device into 1 service they cannot reach now.',
        '',
        'Newly refused:',
        'IDENTITY  SERVICE  CHECK  HAS                                NEEDS     REASON',
        'alice     payroll  os-14  {"type":"macOS","version":"13.6"}  >=14.4.0  version too old',
        '(and 2 more)',
        '',
        'Newly granted:',
        'IDENTITY  SERVICE',
        'bob       wiki',
      ].join('\n'),
    );
    expect(
      previewText({
        newlyRefused: [],
        newlyGranted: [],
        newlyRefusedCount: 0,
        newlyGrantedCount: 0,
        identitiesRefused: 0,
        servicesRefused: 0,
      }),
    ).toBe('This change blocks no device and grants nothing new.');
  });

  it('prints a history with who did each step, and tables exceptions by id', () => {
    expect(
      historyText([
        {
          at: '2026-11-28T10:00:00Z',
          action: 'granted',
          by: { name: 'Default Admin' },
          expiresAt: '2026-12-05T10:00:00Z',
          reason: 'r',
        },
        {
          at: '2026-12-05T10:00:00Z',
          action: 'expired',
          by: null,
          expiresAt: '2026-12-05T10:00:00Z',
          reason: 'r',
        },
      ]),
    ).toBe(
      [
        'AT                    ACTION   BY                EXPIRES               REASON',
        '2026-11-28T10:00:00Z  granted  Default Admin     2026-12-05T10:00:00Z  r',
        '2026-12-05T10:00:00Z  expired  (the controller)  2026-12-05T10:00:00Z  r',
      ].join('\n'),
    );
    const page = {
      data: [
        {
          id: 'ex1',
          identityId: null,
          identityRoles: ['#contractors'],
          postureCheckId: null,
          expiresAt: 'T',
          state: 'active',
          grantedBy: { name: 'admin' },
          reason: 'audit',
        },
      ],
      meta: {},
    };
    expect(listText(exceptions, page, false)).toBe(
      [
        'ID   FOR           CHECK        EXPIRES  STATE   GRANTED BY  REASON',
        'ex1  #contractors  every check  T        active  admin       audit',
      ].join('\n'),
    );
  });
});
