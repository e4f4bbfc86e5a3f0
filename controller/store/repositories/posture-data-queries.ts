/**
 * Posture data, one code for both databases (store/sql/statement.ts): an identity's facts as one JSON text per
 * kind (OpenZiti's os, mac and domain, and each described type's fact under its type id), the binaries it
 * reported and its API sessions' MFA pass, wake, unlock and SDK info, in their own tables.
 *
 * Only the statements. What each store keeps in memory, and when it writes the times of repeated reports, are
 * its own rules around these (sqlite/posture-repository.ts, postgres/posture-repository.ts): SQLite writes
 * its cache through and a repeated time itself, at once, synchronously; PostgreSQL drops and announces to the
 * other controllers (an announcement is a statement of its own outside a transaction, which a step cannot
 * await) and writes the times behind, on a timer.
 */
import type { SnapshotParts, IdentityPostureData } from '../../posture-model.js';
import type { ApiSessionPatch, FactSlotRef } from '../posture-repository.js';
import {
  API_SESSION_COLUMNS,
  emptyPostureData,
  kindOfSlot,
  putRow,
  text,
  type FactRow,
  type PosturePart,
  type PostureRow,
  type ProcessRow,
} from '../rows/posture-rows.js';
import type { Dialect } from '../sql/dialect.js';
import { atomic, one, rows, run, type Fragment, type Sql } from '../sql/statement.js';

/** A time a report repeating a stored fact moved it to (ISO text), to be written. */
export interface ReportedTime {
  identityId: string;
  slot: FactSlotRef;
  at: string;
}

/** Each part of an identity's posture data: its table, and the columns of its rows. */
const PARTS: Record<PosturePart, { table: string; columns: readonly string[] }> = {
  fact: { table: 'posture_facts', columns: ['kind', 'value', 'posture_check_id', 'updated_at'] },
  process: {
    table: 'posture_processes',
    columns: ['path', 'is_running', 'hash', 'signer_fingerprints', 'posture_check_id', 'updated_at'],
  },
  session: {
    table: 'posture_api_sessions',
    columns: ['api_session_id', 'mfa_passed_at', 'woken_at', 'unlocked_at', 'sdk_info'],
  },
};
const ALL_COLUMNS = [...new Set(Object.values(PARTS).flatMap((p) => p.columns))];

/**
 * The identities' rows of the parts asked for, as one statement (one round trip on PostgreSQL): each part's
 * rows carry its own columns and NULL for the others'. Sorted as a snapshot lists them: processes by path,
 * API sessions by id (bytewise on both: PostgreSQL's columns are COLLATE "C").
 */
function partsOf(where: Fragment, asked: readonly { part: PosturePart; and?: Fragment }[]): Fragment {
  const branches = asked.map(({ part, and }) => {
    const { table, columns } = PARTS[part];
    const list = ALL_COLUMNS.map((c) => {
      if (!columns.includes(c)) return `NULL AS ${c}`;
      // 1 or 0 on both (PostgreSQL's column is a boolean)
      return c === 'is_running' ? `CASE WHEN is_running THEN 1 ELSE 0 END AS is_running` : c;
    });
    return {
      sql: `SELECT identity_id, '${part}' AS part, ${list.join(', ')} FROM ${table}
            WHERE ${where.sql}${and ? ` AND ${and.sql}` : ''}`,
      params: [...where.params, ...(and?.params ?? [])],
    };
  });
  return {
    sql: `${branches.map((b) => b.sql).join(' UNION ALL ')} ORDER BY identity_id, part, path, api_session_id`,
    params: branches.flatMap((b) => b.params),
  };
}

const ALL_PARTS = [{ part: 'fact' }, { part: 'process' }, { part: 'session' }] as const;

export class PostureDataQueries {
  /** one identity's rows, all parts */
  private readonly load = partsOf({ sql: 'identity_id = ?', params: [] }, ALL_PARTS).sql;

  constructor(private readonly dialect: Dialect) {}

  /** Everything stored about one identity; empty slots when nothing is. */
  *read(identityId: string): Sql<IdentityPostureData> {
    const data = emptyPostureData(identityId);
    for (const row of yield* rows<PostureRow>(this.load, [identityId, identityId, identityId]))
      putRow(data, row);
    return data;
  }

  /** `read` of each identity (`parts` of them only), in one statement; none for no identities. */
  *readMany(identityIds: readonly string[], parts?: SnapshotParts): Sql<Map<string, IdentityPostureData>> {
    const found = new Map<string, IdentityPostureData>();
    for (const id of identityIds) if (!found.has(id)) found.set(id, emptyPostureData(id));
    const asked = !parts
      ? ALL_PARTS
      : [
          ...(parts.kinds.length > 0
            ? [{ part: 'fact', and: this.dialect.oneOf('kind', parts.kinds) } as const]
            : []),
          ...(parts.processes ? [{ part: 'process' } as const] : []),
          ...(parts.apiSessions ? [{ part: 'session' } as const] : []),
        ];
    if (found.size === 0 || asked.length === 0) return found;
    const query = partsOf(this.dialect.oneOf('identity_id', [...found.keys()]), asked);
    for (const row of yield* rows<PostureRow>(query.sql, query.params))
      putRow(found.get(row.identity_id)!, row);
    return found;
  }

  /** Upserts in place: a report rewrites its row instead of deleting it and inserting another. */
  *setFact(identityId: string, row: FactRow): Sql<number> {
    return yield* run(
      `INSERT INTO posture_facts (identity_id, kind, posture_check_id, value, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (identity_id, kind) DO UPDATE SET posture_check_id = excluded.posture_check_id,
         value = excluded.value, updated_at = excluded.updated_at`,
      [identityId, row.kind, row.posture_check_id, row.value, row.updated_at],
    );
  }

  *setProcess(identityId: string, row: ProcessRow): Sql<number> {
    return yield* run(
      `INSERT INTO posture_processes
         (identity_id, path, posture_check_id, is_running, hash, signer_fingerprints, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (identity_id, path) DO UPDATE SET posture_check_id = excluded.posture_check_id,
         is_running = excluded.is_running, hash = excluded.hash,
         signer_fingerprints = excluded.signer_fingerprints, updated_at = excluded.updated_at`,
      [
        identityId,
        row.path,
        row.posture_check_id,
        row.is_running,
        row.hash,
        row.signer_fingerprints,
        row.updated_at,
      ],
    );
  }

  /**
   * Moves the stored times of repeated reports, facts and binaries together; a row whose time is already
   * later (a newer report, by any controller) keeps it. One statement per table, on PostgreSQL one for both.
   */
  *writeTimes(times: readonly ReportedTime[]): Sql<void> {
    const facts: string[][] = [];
    const processes: string[][] = [];
    for (const { identityId, slot, at } of times)
      if (slot.kind === 'process') processes.push([identityId, slot.path, at]);
      else facts.push([identityId, kindOfSlot(slot), at]);
    const writes: Fragment[] = [];
    if (facts.length > 0) writes.push(this.timesOf('posture_facts', 'kind', facts));
    if (processes.length > 0) writes.push(this.timesOf('posture_processes', 'path', processes));
    yield* this.together(writes);
  }

  private timesOf(table: string, key: string, times: readonly string[][]): Fragment {
    const t = this.dialect.relation('t', ['identity_id', key, 'at'], times);
    return {
      sql: `UPDATE ${table} SET updated_at = t.at FROM ${t.sql}
            WHERE ${table}.identity_id = t.identity_id AND ${table}.${key} = t.${key} AND ${table}.updated_at < t.at`,
      params: t.params,
    };
  }

  *deleteProcess(identityId: string, path: string): Sql<number> {
    return yield* run(`DELETE FROM posture_processes WHERE identity_id = ? AND path = ?`, [identityId, path]);
  }

  /**
   * One upsert, only for a live API session (the foreign key would refuse it: an event that arrives after its
   * API session ended writes nothing). A row that exists keeps its identity; only the given fields are
   * written, and with none given an existing row is left as it is (0 rows touched).
   */
  *updateApiSession(apiSessionId: string, identityId: string, patch: ApiSessionPatch): Sql<number> {
    const entries = Object.entries(patch) as [keyof ApiSessionPatch, unknown][];
    const columns = entries.map(([key]) => API_SESSION_COLUMNS[key]);
    const values = entries.map(([key, v]) =>
      key === 'sdkInfo' ? (v === null || v === undefined ? null : JSON.stringify(v)) : text(v as Date | null),
    );
    const onConflict =
      columns.length === 0
        ? 'DO NOTHING'
        : `DO UPDATE SET ${columns.map((c) => `${c} = excluded.${c}`).join(', ')}`;
    return yield* run(
      `INSERT INTO posture_api_sessions (api_session_id, identity_id${columns.map((c) => `, ${c}`).join('')})
       SELECT ?, ?${columns.map(() => ', ?').join('')} WHERE EXISTS (SELECT 1 FROM api_sessions WHERE id = ?)
       ON CONFLICT (api_session_id) ${onConflict}`,
      [apiSessionId, identityId, ...values, apiSessionId],
    );
  }

  *clearMfa(identityId: string): Sql<number> {
    return yield* run(`UPDATE posture_api_sessions SET mfa_passed_at = NULL WHERE identity_id = ?`, [
      identityId,
    ]);
  }

  *identityOfApiSession(apiSessionId: string): Sql<string | undefined> {
    const row = yield* one<{ identity_id: string }>(
      `SELECT identity_id FROM posture_api_sessions WHERE api_session_id = ?`,
      [apiSessionId],
    );
    return row?.identity_id;
  }

  *accessDigest(apiSessionId: string): Sql<string | null> {
    const row = yield* one<{ access_digest: string | null }>(
      `SELECT access_digest FROM posture_api_sessions WHERE api_session_id = ?`,
      [apiSessionId],
    );
    return row?.access_digest ?? null;
  }

  *setAccessDigest(apiSessionId: string, digest: string): Sql<void> {
    yield* run(`UPDATE posture_api_sessions SET access_digest = ? WHERE api_session_id = ?`, [
      digest,
      apiSessionId,
    ]);
  }

  *identitiesWithApiSessions(): Sql<string[]> {
    const found = yield* rows<{ identity_id: string }>(
      `SELECT DISTINCT identity_id FROM posture_api_sessions ORDER BY identity_id`,
    );
    return found.map((r) => r.identity_id);
  }

  /** the identity whose row it was, if there was one */
  *deleteApiSession(apiSessionId: string): Sql<string | undefined> {
    const gone = yield* one<{ identity_id: string }>(
      `DELETE FROM posture_api_sessions WHERE api_session_id = ? RETURNING identity_id`,
      [apiSessionId],
    );
    return gone?.identity_id;
  }

  /** The three tables all or nothing (on PostgreSQL one statement). */
  *deleteIdentity(identityId: string): Sql<void> {
    yield* this.together(
      ['posture_facts', 'posture_processes', 'posture_api_sessions'].map((table) => ({
        sql: `DELETE FROM ${table} WHERE identity_id = ?`,
        params: [identityId],
      })),
    );
  }

  /** Removes the API-session rows whose API session no longer exists; answers their identities, one per row. */
  *deleteOrphans(): Sql<string[]> {
    const gone = yield* rows<{ identity_id: string }>(
      `DELETE FROM posture_api_sessions
       WHERE NOT EXISTS (SELECT 1 FROM api_sessions WHERE api_sessions.id = posture_api_sessions.api_session_id)
       RETURNING identity_id`,
    );
    return gone.map((r) => r.identity_id);
  }

  /** Writes that go together, in as few statements as the database takes them, all or nothing. */
  private *together(writes: readonly Fragment[]): Sql<void> {
    const statements = this.dialect.together(writes);
    if (statements.length === 1) yield* run(statements[0]!.sql, statements[0]!.params);
    else if (statements.length > 1)
      yield* atomic(function* () {
        for (const s of statements) yield* run(s.sql, s.params);
      });
  }
}
