/**
 * A warned service is notified at most once a day per service and deadline, with the deadline and the fix;
 * the time of the last notification lives in the desktop's settings file, so a restart within the day says
 * nothing again, and the file keeps the user's own settings beside it. A moved deadline is told at once.
 * The clock is a fake one the test moves.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DesktopSettings } from '../../../desktop/agent/desktop-settings.js';
import type { StartAtLogin } from '../../../desktop/agent/start-at-login.js';
import {
  WARNING_NOTICE_INTERVAL_MS as DAY,
  WarningNotices,
  type WarningNotice,
} from '../../../desktop/agent/warning-notices.js';
import { describeServiceAccess, type ServiceAccessView } from '../../../src/api/service-access.js';
import { query, service } from '../agent/fakes.js';

const MARCH = '2027-03-03T09:00:00.000Z';
const HOUR = 60 * 60 * 1000;
const autostart: StartAtLogin = { isEnabled: async () => false, setEnabled: async () => undefined };

function warned(name: string, enforceFrom = MARCH): ServiceAccessView {
  const reason = {
    code: 'OS_VERSION_OUT_OF_RANGE' as const,
    osType: 'macOS',
    osVersion: '14.2.0',
    allowed: [{ type: 'macOS', versions: ['>=14.4.0'] }],
  };
  const q = query('OS', {
    isPassing: true,
    reason,
    warning: { enforceFrom },
    remediation: 'Use System Settings',
  });
  return describeServiceAccess(service(name, [q], true));
}

let dir: string;
let now: number;
let shown: WarningNotice[];
const notices = (settings = new DesktopSettings(dir, autostart)) =>
  new WarningNotices(
    settings,
    (n) => void shown.push(n),
    () => now,
    'UTC',
  );

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'postern-warn-notices-'));
  now = Date.parse('2027-02-20T08:00:00.000Z');
  shown = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('warned service notifications', () => {
  it('tell the deadline and the fix, once a day at most per service', async () => {
    const n = notices();
    const list = [warned('wiki'), warned('git')];
    await n.review(list);
    expect(shown).toEqual([
      {
        title: 'wiki will be blocked from 3 March 2027, 09:00',
        body:
          'From 3 March 2027, 09:00: Update macOS to 14.4 or later (this device runs 14.2.0) ' +
          'Your administrator says: Use System Settings',
      },
      expect.objectContaining({ title: 'git will be blocked from 3 March 2027, 09:00' }),
    ]);
    await n.review(list);
    now += 23 * HOUR;
    await n.review(list);
    expect(shown).toHaveLength(2);
    now += HOUR;
    await n.review(list);
    expect(shown.map((s) => s.title.split(' ')[0])).toEqual(['wiki', 'git', 'wiki', 'git']);
  });

  it("a restart within the day says nothing again; the settings file keeps the user's settings", async () => {
    const settings = new DesktopSettings(dir, autostart);
    await settings.update({ useBundledController: true });
    await notices(settings).review([warned('wiki')]);
    expect(shown).toHaveLength(1);

    now += 12 * HOUR;
    const restarted = new DesktopSettings(dir, autostart);
    await notices(restarted).review([warned('wiki')]);
    expect(shown).toHaveLength(1);
    expect(await restarted.load()).toMatchObject({ useBundledController: true });
    const file = JSON.parse(readFileSync(join(dir, 'desktop.json'), 'utf8')) as Record<string, unknown>;
    expect(file).toEqual({
      useBundledController: true,
      warningNotices: { 'svc-wiki@2027-03-03T09:00:00.000Z': now - 12 * HOUR },
    });

    now += 12 * HOUR;
    await notices(new DesktopSettings(dir, autostart)).review([warned('wiki')]);
    expect(shown).toHaveLength(2);
  });

  it('a moved deadline is news: told at once', async () => {
    const n = notices();
    await n.review([warned('wiki')]);
    await n.review([warned('wiki', '2027-03-10T09:00:00.000Z')]);
    expect(shown.map((s) => s.title)).toEqual([
      'wiki will be blocked from 3 March 2027, 09:00',
      'wiki will be blocked from 10 March 2027, 09:00',
    ]);
  });

  it('says nothing about reachable, blocked or excepted services', async () => {
    const excepted = describeServiceAccess(
      service('crm', [query('MAC', { isPassing: true, exception: { expiresAt: MARCH } })], true),
    );
    const blocked = describeServiceAccess(service('db', [query('MAC')]));
    const open = describeServiceAccess(service('git', [], true));
    await notices().review([excepted, blocked, open]);
    expect(shown).toEqual([]);
  });

  it('two lists arriving together notify once', async () => {
    const n = notices();
    await Promise.all([n.review([warned('wiki')]), n.review([warned('wiki')])]);
    expect(shown).toHaveLength(1);
  });

  it('forgets entries a day old, so the file does not grow', async () => {
    const n = notices();
    await n.review([warned('wiki')]);
    now += DAY;
    await n.review([]);
    expect(await new DesktopSettings(dir, autostart).warningNoticeTimes()).toEqual({});
  });

  it('reads a damaged entry as never notified', async () => {
    const settings = new DesktopSettings(dir, autostart);
    await settings.saveWarningNoticeTimes({
      'svc-wiki@2027-03-03T09:00:00.000Z': 'yesterday' as unknown as number,
    });
    await notices(settings).review([warned('wiki')]);
    expect(shown).toHaveLength(1);
  });
});
