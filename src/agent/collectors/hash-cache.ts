import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isExecutableFile } from './program-file.js';
import { pipeline } from 'node:stream/promises';

/** Hashes one file; the default streams it so a large binary never sits in memory. */
export type FileHasher = (path: string) => Promise<string>;

/** Reads the file's identity; the default is a bigint `fs.stat`. */
export type FileIdentityReader = (path: string) => Promise<string>;

export interface HashCacheOptions {
  /** Most files remembered; the least recently used is dropped first. */
  maxEntries?: number;
  hashFile?: FileHasher;
  readIdentity?: FileIdentityReader;
}

export const DEFAULT_HASH_CACHE_ENTRIES = 512;

/** sha256 of a file as lower-case hex, streamed. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/**
 * What must be unchanged for a cached hash to stand. Bigint stat because NTFS file ids and some Linux
 * inode numbers exceed 2^53 and would collide as doubles. ctime is included besides mtime because
 * mtime can be set back (`touch -r`) after rewriting a binary, while ctime cannot without root.
 */
export async function statIdentity(path: string): Promise<string> {
  const s = await stat(path, { bigint: true });
  if (!s.isFile()) throw new Error(`not a regular file: ${path}`);
  return [s.dev, s.ino, s.size, s.mtimeNs, s.ctimeNs].join(':');
}

interface Entry {
  identity: string;
  hash: string;
}

/**
 * sha256 of files with a cache, so re-collecting posture every few seconds costs a `stat` per binary
 * instead of reading it. Concurrent requests for the same unchanged file share one hashing.
 */
export class HashCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<string>>();
  private readonly maxEntries: number;
  private readonly hashFile: FileHasher;
  private readonly readIdentity: FileIdentityReader;

  constructor(options: HashCacheOptions = {}) {
    this.maxEntries = Math.max(1, options.maxEntries ?? DEFAULT_HASH_CACHE_ENTRIES);
    this.hashFile = options.hashFile ?? sha256File;
    this.readIdentity = options.readIdentity ?? statIdentity;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Rejects when the file cannot be read; see `hashOrEmpty` for the posture answer. */
  async hash(path: string): Promise<string> {
    const identity = await this.readIdentity(path);
    const cached = this.entries.get(path);
    if (cached && cached.identity === identity) {
      this.touch(path, cached);
      return cached.hash;
    }
    const key = `${path}\0${identity}`;
    const running = this.inFlight.get(key);
    if (running) return running;
    const job = this.compute(path, identity).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, job);
    return job;
  }

  /** The posture answer for an unreadable or missing file is an empty hash, not an error. */
  async hashOrEmpty(path: string): Promise<string> {
    try {
      return await this.hash(path);
    } catch {
      return '';
    }
  }

  /**
   * The posture answer for a process query: the hash of a running process's executable, or of a file that
   * is an executable program. Anything else (`/etc/shadow`, a key file) is never read for the controller,
   * whatever path a posture check names: the answer is an empty hash. `knownProgram`: the caller already
   * knows it is one (a running process's image, a Windows `.exe`).
   */
  async hashOfProgram(path: string, knownProgram: boolean): Promise<string> {
    if (!knownProgram && !(await isExecutableFile(path))) return '';
    return this.hashOrEmpty(path);
  }

  clear(): void {
    this.entries.clear();
  }

  private async compute(path: string, identity: string): Promise<string> {
    const hash = await this.hashFile(path);
    // A file rewritten while it was being read gives a hash of neither version: return it for this
    // report but do not remember it, so the next collection hashes the settled file.
    const after = await this.readIdentity(path).catch(() => undefined);
    if (after === identity) this.touch(path, { identity, hash });
    else this.entries.delete(path);
    return hash;
  }

  private touch(path: string, entry: Entry): void {
    this.entries.delete(path);
    this.entries.set(path, entry);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }
}
