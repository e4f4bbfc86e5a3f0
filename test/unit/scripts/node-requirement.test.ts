/**
 * The Node.js version the README states is one `npm ci` installs on without an EBADENGINE warning: every
 * package in package-lock.json accepts it, and package.json declares the same minimum.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

function statedMinimum(): string {
  const match = /Requirements: Node\.js (\d+\.\d+) or later/.exec(read('README.md'));
  if (!match) throw new Error("README.md has no 'Requirements: Node.js X.Y or later'");
  return match[1]!;
}

describe('the Node.js version the README states', () => {
  it('is the minimum package.json declares', () => {
    const pkg = JSON.parse(read('package.json')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(`>=${statedMinimum()}`);
  });

  it('is accepted by the engines of every package npm ci installs', () => {
    const version = `${statedMinimum()}.0`;
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { engines?: { node?: string } | string[] }>;
    };
    const refusing = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      return range && !semver.satisfies(version, range) ? [`${path || 'postern'} wants node ${range}`] : [];
    });
    expect(refusing, `on Node.js ${version}`).toEqual([]);
  });
});
