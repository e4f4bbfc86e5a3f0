import { makePrivate, privateFile } from './data-folder.js';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

/** Who to tell when the outbox triggers write a row (see migrations/006-outbox.ts); one listener per database. */
const outboxListeners = new WeakMap<Db, () => void>();

export function onOutboxWritten(db: Db, listener: (() => void) | undefined): void {
  if (listener) outboxListeners.set(db, listener);
  else outboxListeners.delete(db);
}

/**
 * Opens (creating if needed) the controller's SQLite file in `dataDir` and brings its schema up to date.
 * WAL with synchronous=FULL: a write the API has acknowledged survives a crash or power loss, at the
 * cost of one fsync per commit.
 */
export function openDatabase(dataDir: string, fileName = 'postern.db'): Db {
  makePrivate(dataDir);
  const db = new Database(join(dataDir, fileName));
  db.pragma('journal_mode = WAL');
  // SQLite creates its files with the process umask: the database and its WAL are private like the rest.
  for (const suffix of ['', '-wal', '-shm']) privateFile(join(dataDir, `${fileName}${suffix}`));
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // Called by the outbox triggers inside the writing transaction: it may only schedule work for later.
  db.function('postern_outbox_written', { deterministic: false }, () => {
    outboxListeners.get(db)?.();
    return null;
  });
  migrate(db);
  return db;
}

export function migrate(db: Db): void {
  // Migration 11 hashes the edge-session tokens stored before it (SQLite has no SHA-256 of its own).
  db.function('postern_sha256', { deterministic: true }, (text: unknown) =>
    createHash('sha256').update(String(text)).digest('hex'),
  );
  const current = db.pragma('user_version', { simple: true }) as number;
  for (let version = current; version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
