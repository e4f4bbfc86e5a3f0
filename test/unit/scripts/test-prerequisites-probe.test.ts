/**
 * How the prerequisite check tells what is missing: the real dpkg-query over a package database of the
 * test's own where dpkg exists, and executables in a folder of the test's own where it does not. Software the
 * suites look for beyond PATH (PostgreSQL) brings its own look, stood in for here by a plain function.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findCommand } from '../../../scripts/find-command.js';
import { missingPrerequisites } from '../../../scripts/test-prerequisites-probe.js';
import { fakeDebian, hasRealDpkgQuery, type FakeDebian } from '../../helpers/fake-debian-packages.js';

const onLinux = process.platform === 'linux';
const dir = mkdtempSync(join(tmpdir(), 'postern-probe-'));
const fakes: FakeDebian[] = [];
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  fakes.forEach((f) => f.remove());
});

function file(name: string, mode: number): string {
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, mode);
  return path;
}

describe.skipIf(!onLinux)('without dpkg: by the commands the suites run', () => {
  const tool = file('postern-tool', 0o755);
  file('postern-unrunnable', 0o644);

  it('finds an absolute path, or a name on PATH, only when it can be executed', () => {
    expect(findCommand(tool, '')).toBe(tool);
    expect(findCommand('postern-tool', `/nonexistent${delimiter}${dir}`)).toBe(tool);
    expect(findCommand('postern-unrunnable', dir)).toBeUndefined();
    expect(findCommand(join(dir, 'postern-unrunnable'), dir)).toBeUndefined();
    expect(findCommand('postern-tool', '')).toBeUndefined();
  });

  it('a package is missing when any one of its commands is', () => {
    const missing = missingPrerequisites(
      [
        { package: 'present', commands: ['postern-tool', tool] },
        { package: 'half-there', commands: ['postern-tool', 'postern-unrunnable'] },
        { package: 'absent', commands: ['postern-nowhere'] },
      ],
      dir,
    );
    expect(missing.map((p) => p.package)).toEqual(['half-there', 'absent']);
  });

  it('software the suites look for beyond PATH is judged by that look, not by PATH', () => {
    const lookedIn: string[] = [];
    const missing = missingPrerequisites(
      [
        {
          package: 'found-elsewhere',
          commands: ['postern-nowhere'],
          isPresent: (path) => (lookedIn.push(path), true),
        },
        { package: 'not-found', commands: ['postern-tool'], isPresent: () => false },
      ],
      dir,
    );
    expect(missing.map((p) => p.package)).toEqual(['not-found']);
    expect(lookedIn).toEqual([dir]);
  });
});

describe.skipIf(!hasRealDpkgQuery())('with dpkg: by what dpkg says is installed', () => {
  it('installed and held packages are there; removed, half-installed and unknown ones are missing', () => {
    const debian = fakeDebian({
      packages: {
        installed: 'install ok installed',
        held: 'hold ok installed',
        removed: 'deinstall ok config-files',
        broken: 'install reinstreq half-installed',
      },
    });
    fakes.push(debian);
    const names = ['installed', 'held', 'removed', 'broken', 'unknown'];
    const missing = missingPrerequisites(
      // Commands that exist nowhere: dpkg's answer, not the commands, must decide.
      names.map((name) => ({ package: name, commands: ['postern-nowhere'] })),
      debian.bin,
    );
    expect(missing.map((p) => p.package)).toEqual(['removed', 'broken', 'unknown']);
  });

  it('software the suites look for beyond PATH is there when dpkg has it or the look finds it', () => {
    const debian = fakeDebian({
      packages: {
        'installed-unseen': 'install ok installed',
        'removed-but-found': 'deinstall ok config-files',
      },
    });
    fakes.push(debian);
    const missing = missingPrerequisites(
      [
        { package: 'installed-unseen', commands: ['postern-nowhere'], isPresent: () => false },
        { package: 'removed-but-found', commands: ['postern-nowhere'], isPresent: () => true },
        { package: 'unknown-but-found', commands: ['postern-nowhere'], isPresent: () => true },
        { package: 'unknown-unseen', commands: ['postern-nowhere'], isPresent: () => false },
      ],
      debian.bin,
    );
    expect(missing.map((p) => p.package)).toEqual(['unknown-unseen']);
  });
});
