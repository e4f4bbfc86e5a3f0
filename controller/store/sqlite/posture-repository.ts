import type { Db } from '../database.js';
import type {
  ApiSessionPatch,
  PostureDataRepository,
  PostureRepository,
} from '../../posture/posture-repository.js';
import type {
  ApiSessionPostureData,
  DomainData,
  IdentityPostureData,
  MacData,
  OsData,
  ProcessData,
} from '../../posture/types.js';
import {
  SqliteEdgeSessionRepository,
  SqliteFailedRequestRepository,
  SqliteServiceChangeRepository,
} from './posture-records.js';

type FactKind = 'os' | 'mac' | 'domain';

interface FactRow {
  kind: FactKind;
  posture_check_id: string;
  value: string;
  updated_at: string;
}
interface ProcessRow {
  path: string;
  posture_check_id: string;
  is_running: number;
  hash: string;
  signer_fingerprints: string;
  updated_at: string;
}
interface ApiSessionRow {
  api_session_id: string;
  mfa_passed_at: string | null;
  woken_at: string | null;
  unlocked_at: string | null;
  sdk_info: string | null;
}

const date = (text: string | null): Date | null => (text === null ? null : new Date(text));
const text = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

const COLUMNS: Record<keyof ApiSessionPatch, string> = {
  mfaPassedAt: 'mfa_passed_at',
  wokenAt: 'woken_at',
  unlockedAt: 'unlocked_at',
  sdkInfo: 'sdk_info',
};

/** Identity facts as one JSON value per kind; processes and API sessions in their own tables. */
class SqlitePostureDataRepository implements PostureDataRepository {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      facts: db.prepare(
        `SELECT kind, posture_check_id, value, updated_at FROM posture_facts WHERE identity_id = ?`,
      ),
      setFact: db.prepare(
        `INSERT OR REPLACE INTO posture_facts (identity_id, kind, posture_check_id, value, updated_at) VALUES (?, ?, ?, ?, ?)`,
      ),
      processes: db.prepare(`SELECT * FROM posture_processes WHERE identity_id = ? ORDER BY path`),
      setProcess: db.prepare(
        `INSERT OR REPLACE INTO posture_processes (identity_id, path, posture_check_id, is_running, hash, signer_fingerprints, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      apiSessions: db.prepare(
        `SELECT * FROM posture_api_sessions WHERE identity_id = ? ORDER BY api_session_id`,
      ),
      ensureApiSession: db.prepare(
        `INSERT OR IGNORE INTO posture_api_sessions (api_session_id, identity_id) VALUES (?, ?)`,
      ),
      clearMfa: db.prepare(`UPDATE posture_api_sessions SET mfa_passed_at = NULL WHERE identity_id = ?`),
      identityOf: db.prepare(`SELECT identity_id FROM posture_api_sessions WHERE api_session_id = ?`),
      digest: db.prepare(`SELECT access_digest FROM posture_api_sessions WHERE api_session_id = ?`),
      setDigest: db.prepare(`UPDATE posture_api_sessions SET access_digest = ? WHERE api_session_id = ?`),
      identities: db.prepare(`SELECT DISTINCT identity_id FROM posture_api_sessions`),
      allApiSessions: db.prepare(`SELECT api_session_id FROM posture_api_sessions`),
      deleteApiSession: db.prepare(`DELETE FROM posture_api_sessions WHERE api_session_id = ?`),
      deleteFacts: db.prepare(`DELETE FROM posture_facts WHERE identity_id = ?`),
      deleteProcesses: db.prepare(`DELETE FROM posture_processes WHERE identity_id = ?`),
      deleteProcess: db.prepare(`DELETE FROM posture_processes WHERE identity_id = ? AND path = ?`),
      deleteApiSessions: db.prepare(`DELETE FROM posture_api_sessions WHERE identity_id = ?`),
    };
  }

  load(identityId: string): IdentityPostureData {
    const data: IdentityPostureData = {
      identityId,
      os: null,
      mac: null,
      domain: null,
      processes: [],
      apiSessions: {},
    };
    for (const row of this.stmts.facts.all(identityId) as FactRow[]) {
      const slot = { postureCheckId: row.posture_check_id, lastUpdatedAt: new Date(row.updated_at) };
      const value = JSON.parse(row.value) as Record<string, unknown>;
      if (row.kind === 'os') data.os = { ...slot, ...(value as Pick<OsData, 'type' | 'version' | 'build'>) };
      if (row.kind === 'mac') data.mac = { ...slot, addresses: value.addresses as string[] };
      if (row.kind === 'domain') data.domain = { ...slot, domain: value.domain as string };
    }
    data.processes = (this.stmts.processes.all(identityId) as ProcessRow[]).map((r) => ({
      postureCheckId: r.posture_check_id,
      lastUpdatedAt: new Date(r.updated_at),
      path: r.path,
      isRunning: r.is_running === 1,
      hash: r.hash,
      signerFingerprints: JSON.parse(r.signer_fingerprints) as string[],
    }));
    for (const r of this.stmts.apiSessions.all(identityId) as ApiSessionRow[]) {
      const session: ApiSessionPostureData = {
        apiSessionId: r.api_session_id,
        mfaPassedAt: date(r.mfa_passed_at),
        wokenAt: date(r.woken_at),
        unlockedAt: date(r.unlocked_at),
        sdkInfo: r.sdk_info === null ? null : (JSON.parse(r.sdk_info) as Record<string, string>),
      };
      data.apiSessions[r.api_session_id] = session;
    }
    return data;
  }

  setOs(identityId: string, os: OsData): void {
    this.setFact(identityId, 'os', os, { type: os.type, version: os.version, build: os.build });
  }

  setMac(identityId: string, mac: MacData): void {
    this.setFact(identityId, 'mac', mac, { addresses: mac.addresses });
  }

  setDomain(identityId: string, domain: DomainData): void {
    this.setFact(identityId, 'domain', domain, { domain: domain.domain });
  }

  setProcess(identityId: string, p: ProcessData): void {
    this.stmts.setProcess.run(
      identityId,
      p.path,
      p.postureCheckId,
      p.isRunning ? 1 : 0,
      p.hash,
      JSON.stringify(p.signerFingerprints),
      p.lastUpdatedAt.toISOString(),
    );
  }

  deleteProcess(identityId: string, path: string): void {
    this.stmts.deleteProcess.run(identityId, path);
  }

  updateApiSession(apiSessionId: string, identityId: string, patch: ApiSessionPatch): void {
    this.stmts.ensureApiSession.run(apiSessionId, identityId);
    const entries = Object.entries(patch) as [keyof ApiSessionPatch, unknown][];
    if (entries.length === 0) return;
    const sets = entries.map(([key]) => `${COLUMNS[key]} = ?`).join(', ');
    const values = entries.map(([key, v]) =>
      key === 'sdkInfo' ? (v === null ? null : JSON.stringify(v)) : text(v as Date | null),
    );
    this.db
      .prepare(`UPDATE posture_api_sessions SET ${sets} WHERE api_session_id = ?`)
      .run(...values, apiSessionId);
  }

  clearMfa(identityId: string): void {
    this.stmts.clearMfa.run(identityId);
  }

  identityOfApiSession(apiSessionId: string): string | undefined {
    return (this.stmts.identityOf.get(apiSessionId) as { identity_id: string } | undefined)?.identity_id;
  }

  accessDigest(apiSessionId: string): string | null {
    return (
      (this.stmts.digest.get(apiSessionId) as { access_digest: string | null } | undefined)?.access_digest ??
      null
    );
  }

  setAccessDigest(apiSessionId: string, digest: string): void {
    this.stmts.setDigest.run(digest, apiSessionId);
  }

  identitiesWithApiSessions(): string[] {
    return (this.stmts.identities.all() as { identity_id: string }[]).map((r) => r.identity_id);
  }

  deleteApiSession(apiSessionId: string): void {
    this.stmts.deleteApiSession.run(apiSessionId);
  }

  deleteIdentity(identityId: string): void {
    this.db.transaction(() => {
      this.stmts.deleteFacts.run(identityId);
      this.stmts.deleteProcesses.run(identityId);
      this.stmts.deleteApiSessions.run(identityId);
    })();
  }

  deleteOrphans(liveApiSession: (apiSessionId: string) => boolean): number {
    const ids = (this.stmts.allApiSessions.all() as { api_session_id: string }[]).map(
      (r) => r.api_session_id,
    );
    const orphans = ids.filter((id) => !liveApiSession(id));
    this.db.transaction(() => orphans.forEach((id) => this.stmts.deleteApiSession.run(id)))();
    return orphans.length;
  }

  private setFact(
    identityId: string,
    kind: FactKind,
    slot: { postureCheckId: string; lastUpdatedAt: Date },
    value: object,
  ): void {
    this.stmts.setFact.run(
      identityId,
      kind,
      slot.postureCheckId,
      JSON.stringify(value),
      slot.lastUpdatedAt.toISOString(),
    );
  }
}

export class SqlitePostureRepository implements PostureRepository {
  readonly data;
  readonly sessions;
  readonly failures;
  readonly changes;

  constructor(readonly db: Db) {
    this.data = new SqlitePostureDataRepository(db);
    this.sessions = new SqliteEdgeSessionRepository(db);
    this.failures = new SqliteFailedRequestRepository(db);
    this.changes = new SqliteServiceChangeRepository(db);
  }
}
