/**
 * Where the PostgreSQL lookup finds the server programs: on PATH first, else in the newest per-version folder
 * (Debian's layout), always both programs from one folder. Folders of the test's own stand in for both places.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findPostgresBinaries } from '../../../scripts/postgres-binaries.js';

const root = mkdtempSync(join(tmpdir(), 'postern-pg-lookup-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A folder holding the named programs; a name ending in '!' is there but not executable. */
function folder(path: string, ...programs: string[]): string {
  const dir = join(root, path);
  mkdirSync(dir, { recursive: true });
  for (const program of programs) {
    const name = program.replace(/!$/, '');
    writeFileSync(join(dir, name), '#!/bin/sh\n');
    chmodSync(join(dir, name), program.endsWith('!') ? 0o644 : 0o755);
  }
  return dir;
}

const nowhere = join(root, 'no-versions-here');

describe.skipIf(process.platform !== 'linux')('findPostgresBinaries', () => {
  const onlyInitdb = folder('path/only-initdb', 'initdb');
  const unrunnable = folder('path/unrunnable', 'initdb', 'postgres!');
  const complete = folder('path/complete', 'initdb', 'postgres');
  const versions = join(root, 'versions');
  folder('versions/9.6/bin', 'initdb', 'postgres');
  folder('versions/10/bin', 'initdb', 'postgres');
  folder('versions/16/bin', 'initdb', 'postgres');
  // Newer, but half-installed: skipped for the newest complete one.
  folder('versions/17/bin', 'initdb');
  // Not a version: Debian's `postgresql-common` style folders sit beside the versions.
  folder('versions/common/bin', 'initdb', 'postgres');

  it('takes the first PATH folder holding both programs, even when a version folder exists', () => {
    const path = [onlyInitdb, unrunnable, complete].join(delimiter);
    expect(findPostgresBinaries({ path, versionsFolder: versions })).toEqual({
      initdb: join(complete, 'initdb'),
      postgres: join(complete, 'postgres'),
    });
  });

  it('otherwise takes the newest complete version, comparing versions as numbers', () => {
    const bin = join(versions, '16', 'bin');
    expect(findPostgresBinaries({ path: onlyInitdb, versionsFolder: versions })).toEqual({
      initdb: join(bin, 'initdb'),
      postgres: join(bin, 'postgres'),
    });
  });

  it('finds nothing when neither place has both programs', () => {
    expect(
      findPostgresBinaries({ path: `${onlyInitdb}${delimiter}${unrunnable}`, versionsFolder: nowhere }),
    ).toBe(undefined);
    expect(findPostgresBinaries({ path: '', versionsFolder: join(root, 'path') })).toBeUndefined();
  });
});
