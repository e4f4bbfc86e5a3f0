import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/**
 * The key that protects MFA secrets at rest, and from which edge-session tokens are derived
 * (platform/keys/session-tokens.ts). It lives outside the database, so a copy of the database
 * (a backup, a stolen disk image of the data dir's DB alone) reveals nothing: either `POSTERN_MASTER_KEY`
 * (32 bytes as 64 hex digits or base64) from the environment, for deployments that keep keys in a secret
 * store, or `<dataDir>/master.key`, 32 random bytes created with mode 0600 on first use.
 */
export const MASTER_KEY_BYTES = 32;
export const MASTER_KEY_FILE = 'master.key';
export const MASTER_KEY_ENV = 'POSTERN_MASTER_KEY';

/** Parses the environment's key; throws (naming the variable, never its value) when it is not 32 bytes. */
export function parseMasterKey(text: string): Buffer {
  const value = text.trim();
  const key =
    /^[0-9a-f]+$/i.test(value) && value.length === MASTER_KEY_BYTES * 2
      ? Buffer.from(value, 'hex')
      : Buffer.from(value, 'base64');
  if (key.length !== MASTER_KEY_BYTES || !/^[A-Za-z0-9+/_=-]+$/.test(value)) {
    throw new Error(
      `${MASTER_KEY_ENV} must be ${MASTER_KEY_BYTES} bytes, written as 64 hex digits or in base64`,
    );
  }
  return key;
}

/**
 * The master key as a controller uses it when nothing yet proves which key is right: the environment's when
 * set, else the key file (created when absent).
 */
export function currentMasterKey(dataDir: string, warn: (message: string) => void = () => {}): Buffer {
  const fromEnv = process.env[MASTER_KEY_ENV]?.trim();
  return fromEnv ? parseMasterKey(fromEnv) : loadOrCreateKeyFile(dataDir, warn);
}

/**
 * Reads the key file, creating it first when absent. The new key is written to a temporary file and
 * hard-linked into place: a link never replaces an existing file, so two controllers starting at once
 * on one data dir agree on a single key, and nobody ever reads a half-written one.
 */
export function loadOrCreateKeyFile(dataDir: string, warn: (message: string) => void = () => {}): Buffer {
  const path = join(dataDir, MASTER_KEY_FILE);
  try {
    return readKeyFile(path, warn);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, randomBytes(MASTER_KEY_BYTES));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(temp);
  }
  return readKeyFile(path, warn);
}

/** The key file when secrets already depend on it: a missing file is an error, never a new key. */
export function readExistingKeyFile(dataDir: string, warn: (message: string) => void = () => {}): Buffer {
  const path = join(dataDir, MASTER_KEY_FILE);
  try {
    return readKeyFile(path, warn);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    throw new Error(
      `MFA secrets are stored but the master key ${path} is missing; restore it from a backup ` +
        `(or set ${MASTER_KEY_ENV}). A new key would make every stored secret unreadable.`,
    );
  }
}

function readKeyFile(path: string, warn: (message: string) => void): Buffer {
  const key = readFileSync(path);
  if (key.length !== MASTER_KEY_BYTES) {
    throw new Error(
      `${path} must hold exactly ${MASTER_KEY_BYTES} bytes; it holds ${key.length}. Restore it from a backup.`,
    );
  }
  if (process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0) {
    warn(`${path} is readable by other users; restrict it with: chmod 600 ${path}`);
  }
  return key;
}
