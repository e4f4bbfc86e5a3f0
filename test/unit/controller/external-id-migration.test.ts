import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../../controller/store/migrations.js';
import { externalJwtSigners } from '../../../controller/store/migrations/015-external-jwt-signers.js';
import { migrate } from '../../../controller/store/database.js';

/**
 * SQLite migration 18 makes identities' externalId unique. A database from before it may hold blanks (ZAC's
 * form sends "") and the same externalId twice: the upgrade must not fail on them, and afterwards the index
 * refuses a duplicate.
 */
describe('migration 18 (unique externalId)', () => {
  it('turns blanks into null, keeps a duplicated externalId on the oldest identity only, then refuses duplicates', () => {
    const db = new Database(':memory:');
    const at = MIGRATIONS.indexOf(externalJwtSigners);
    expect(at).toBeGreaterThan(0);
    // The schema just before it: migrate() then applies it and any after it, as at an upgrade.
    // Migration 11 calls it; there are no edge sessions here to hash.
    db.function('postern_sha256', (text: unknown) => String(text));
    for (const migration of MIGRATIONS.slice(0, at)) db.exec(migration);
    db.pragma(`user_version = ${at}`);
    const insert = db.prepare(
      'INSERT INTO identities (id, name, doc, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
    );
    const add = (id: string, externalId: string | null, createdAt: string) =>
      insert.run(id, `name-${id}`, JSON.stringify({ externalId, roleAttributes: [] }), createdAt, createdAt);
    add('a', '', '2026-01-01T00:00:00.000Z');
    add('b', '', '2026-01-02T00:00:00.000Z');
    add('old', 'carol', '2026-01-01T00:00:00.000Z');
    add('new', 'carol', '2026-02-01T00:00:00.000Z');
    add('solo', 'dave', '2026-01-01T00:00:00.000Z');

    migrate(db);

    const externalIds = Object.fromEntries(
      (
        db.prepare(`SELECT id, json_extract(doc, '$.externalId') AS e FROM identities`).all() as {
          id: string;
          e: string | null;
        }[]
      ).map((r) => [r.id, r.e]),
    );
    expect(externalIds).toEqual({ a: null, b: null, old: 'carol', new: null, solo: 'dave' });
    expect(() => add('again', 'dave', '2026-03-01T00:00:00.000Z')).toThrow(/UNIQUE/);
    db.close();
  });
});
