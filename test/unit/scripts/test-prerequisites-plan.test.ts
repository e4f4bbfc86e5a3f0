/** What `npm test`'s prerequisite check decides to do, from what is missing, who runs it and whether apt-get is there. */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  SKIP_VARIABLE,
  TEST_PREREQUISITES,
  planTestPrerequisites,
  type Prerequisite,
} from '../../../scripts/test-prerequisites-plan.js';

function prerequisites(...names: string[]): Prerequisite[] {
  return names.map((name) => {
    const found = TEST_PREREQUISITES.find((p) => p.package === name);
    if (!found) throw new Error(`${name} is not a test prerequisite`);
    return found;
  });
}

describe('planTestPrerequisites', () => {
  it.each([
    { isRoot: true, hasAptGet: true },
    { isRoot: false, hasAptGet: true },
    { isRoot: true, hasAptGet: false },
    { isRoot: false, hasAptGet: false },
  ])('does nothing when nothing is missing (%o)', (machine) => {
    expect(planTestPrerequisites({ missing: [], ...machine })).toEqual({ action: 'none' });
  });

  it('as root with apt-get, installs exactly the missing packages and announces them in one line', () => {
    const plan = planTestPrerequisites({
      missing: prerequisites('chromium', 'xvfb'),
      isRoot: true,
      hasAptGet: true,
    });
    expect(plan).toEqual({
      action: 'install',
      packages: ['chromium', 'xvfb'],
      announcement: 'test prerequisites: installing chromium xvfb',
    });
  });

  it('not as root, says in one line the apt-get command that installs them', () => {
    const plan = planTestPrerequisites({
      missing: prerequisites('chromium', 'xvfb'),
      isRoot: false,
      hasAptGet: true,
    });
    expect(plan).toEqual({
      action: 'report',
      message:
        'test prerequisites missing: chromium xvfb. Install them with: sudo apt-get install -y chromium xvfb',
    });
  });

  it('without apt-get, even as root, names the commands the suites run and the way to skip the check', () => {
    for (const isRoot of [true, false]) {
      const plan = planTestPrerequisites({
        missing: prerequisites('chromium', 'dbus'),
        isRoot,
        hasAptGet: false,
      });
      expect(plan).toEqual({
        action: 'report',
        message:
          'test prerequisites missing: chromium (/usr/bin/chromium), dbus (dbus-run-session, dbus-send). ' +
          `Install them with your system's package manager, or set ${SKIP_VARIABLE}=1 to run the tests without them.`,
      });
    }
  });

  it('the messages stay one line however many are missing', () => {
    for (const isRoot of [true, false])
      for (const hasAptGet of [true, false]) {
        const plan = planTestPrerequisites({ missing: TEST_PREREQUISITES, isRoot, hasAptGet });
        const text =
          plan.action === 'install' ? plan.announcement : plan.action === 'report' ? plan.message : '';
        expect(text).not.toContain('\n');
        for (const p of TEST_PREREQUISITES) expect(text).toContain(p.package);
      }
  });
});

describe('TEST_PREREQUISITES', () => {
  it('names the packages the suites use, each once, each with a command to look for', () => {
    expect(TEST_PREREQUISITES.map((p) => p.package)).toEqual([
      'chromium',
      'xvfb',
      'gnome-keyring',
      'dbus',
      'libsecret-tools',
      'openssl',
      'curl',
      'iproute2',
      'nftables',
      'cryptsetup-bin',
      'libglib2.0-bin',
      'gsettings-desktop-schemas',
      'postgresql',
    ]);
    for (const p of TEST_PREREQUISITES) expect(p.commands.length).toBeGreaterThan(0);
  });

  it.skipIf(process.platform !== 'linux')(
    'counts PostgreSQL as present when its server programs are found, as the test server looks for them',
    () => {
      const [postgresql] = prerequisites('postgresql');
      const bin = mkdtempSync(join(tmpdir(), 'postern-pg-bin-'));
      try {
        for (const program of ['initdb', 'postgres']) {
          writeFileSync(join(bin, program), '#!/bin/sh\n');
          chmodSync(join(bin, program), 0o755);
        }
        expect(postgresql!.isPresent?.(bin)).toBe(true);
      } finally {
        rmSync(bin, { recursive: true, force: true });
      }
    },
  );
});
