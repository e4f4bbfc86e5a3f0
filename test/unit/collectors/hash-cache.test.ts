import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HashCache, sha256File } from '../../../src/agent/collectors/hash-cache.js';

const dir = mkdtempSync(join(tmpdir(), 'postern-hash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
function file(content: string | Buffer): string {
  const path = join(dir, `f${counter++}`);
  writeFileSync(path, content);
  return path;
}
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** A cache whose hasher counts how often each file is actually read. */
function countingCache(maxEntries?: number) {
  const reads = new Map<string, number>();
  const cache = new HashCache({
    maxEntries,
    hashFile: async (path) => {
      reads.set(path, (reads.get(path) ?? 0) + 1);
      return sha256File(path);
    },
  });
  return { cache, reads };
}

describe('sha256File', () => {
  it('matches sha256sum on a multi-chunk file', async () => {
    const path = file(Buffer.alloc(3 * 1024 * 1024 + 17, 0xa5));
    const expected = execFileSync('sha256sum', [path], { encoding: 'utf8' }).split(' ')[0];
    expect(await sha256File(path)).toBe(expected);
  });
});

describe('HashCache', () => {
  it('hashes an unchanged file once', async () => {
    const { cache, reads } = countingCache();
    const path = file('same bytes');
    expect(await cache.hash(path)).toBe(sha256('same bytes'));
    expect(await cache.hash(path)).toBe(sha256('same bytes'));
    expect(await cache.hash(path)).toBe(sha256('same bytes'));
    expect(reads.get(path)).toBe(1);
  });

  it('re-hashes after the content changes', async () => {
    const { cache, reads } = countingCache();
    const path = file('version 1');
    await cache.hash(path);
    writeFileSync(path, 'version 2, longer');
    expect(await cache.hash(path)).toBe(sha256('version 2, longer'));
    expect(reads.get(path)).toBe(2);
  });

  it('re-hashes a same-size rewrite whose mtime was set back', async () => {
    const { cache } = countingCache();
    const path = file('AAAA');
    const fixedTime = 1_700_000_000; // whole seconds, so restoring it is exact
    utimesSync(path, fixedTime, fixedTime);
    const before = statSync(path, { bigint: true });
    await cache.hash(path);
    writeFileSync(path, 'BBBB');
    utimesSync(path, fixedTime, fixedTime);
    const after = statSync(path, { bigint: true });
    expect([after.mtimeNs, after.size, after.ino]).toEqual([before.mtimeNs, before.size, before.ino]);
    expect(await cache.hash(path)).toBe(sha256('BBBB'));
  });

  it('re-hashes when another file is renamed over the path (new inode)', async () => {
    const { cache, reads } = countingCache();
    const path = file('old');
    await cache.hash(path);
    const replacement = file('new');
    renameSync(replacement, path);
    expect(await cache.hash(path)).toBe(sha256('new'));
    expect(reads.get(path)).toBe(2);
  });

  it('shares one hashing among concurrent requests for the same file', async () => {
    const { cache, reads } = countingCache();
    const path = file(Buffer.alloc(1024 * 1024, 1));
    const results = await Promise.all(Array.from({ length: 8 }, () => cache.hash(path)));
    expect(new Set(results)).toEqual(new Set([sha256(Buffer.alloc(1024 * 1024, 1))]));
    expect(reads.get(path)).toBe(1);
  });

  it('evicts the least recently used entry beyond its bound', async () => {
    const { cache, reads } = countingCache(2);
    const [a, b, c] = [file('a'), file('b'), file('c')];
    await cache.hash(a);
    await cache.hash(b);
    await cache.hash(a); // a is now the most recent
    await cache.hash(c); // evicts b
    expect(cache.size).toBe(2);
    await cache.hash(a);
    await cache.hash(b);
    expect(reads.get(a)).toBe(1);
    expect(reads.get(b)).toBe(2);
  });

  it('rejects for a missing file, and hashOrEmpty turns that into an empty hash', async () => {
    const { cache } = countingCache();
    await expect(cache.hash(join(dir, 'missing'))).rejects.toThrow(/ENOENT/);
    expect(await cache.hashOrEmpty(join(dir, 'missing'))).toBe('');
    expect(await cache.hashOrEmpty(dir)).toBe('');
  });

  it('does not remember a hash taken while the file was changing', async () => {
    let identity = 'v1';
    let reads = 0;
    const cache = new HashCache({
      readIdentity: async () => identity,
      hashFile: async () => {
        reads += 1;
        identity = `v${reads + 1}`; // the file changes under the reader
        return `h${reads}`;
      },
    });
    expect(await cache.hash('/x')).toBe('h1');
    expect(cache.size).toBe(0);
    expect(await cache.hash('/x')).toBe('h2');
  });
});
