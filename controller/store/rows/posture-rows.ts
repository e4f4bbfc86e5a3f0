/**
 * The posture data rows as both stores read them: SQLite's store/sqlite/posture-repository.ts and PostgreSQL's
 * store/postgres/posture-repository.ts share these. A process row differs only in is_running (SQLite 1/0,
 * PostgreSQL a boolean), which each store says by its conversion.
 */
import type { ApiSessionPatch } from '../posture-repository.js';
import type { ApiSessionPostureData, IdentityPostureData, OsData, ProcessData } from '../../posture-model.js';

/** OpenZiti's facts; any other kind is a described type's fact, the kind being its type id (`FIREWALL`). */
export type FactKind = 'os' | 'mac' | 'domain';

export interface FactRow {
  kind: string;
  posture_check_id: string;
  value: string;
  updated_at: string;
}

/** A posture_processes row, `Flag` being how the backend answers is_running. */
export interface ProcessRow<Flag> {
  path: string;
  posture_check_id: string;
  is_running: Flag;
  hash: string;
  signer_fingerprints: string;
  updated_at: string;
}

export interface ApiSessionRow {
  api_session_id: string;
  mfa_passed_at: string | null;
  woken_at: string | null;
  unlocked_at: string | null;
  sdk_info: string | null;
}

export const date = (text: string | null): Date | null => (text === null ? null : new Date(text));
export const text = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

/** API session patch fields and their columns: the only names that ever reach the SQL text. */
export const API_SESSION_COLUMNS: Record<keyof ApiSessionPatch, string> = {
  mfaPassedAt: 'mfa_passed_at',
  wokenAt: 'woken_at',
  unlockedAt: 'unlocked_at',
  sdkInfo: 'sdk_info',
};

/** An identity's posture data before any row is read: every slot empty. */
export const emptyPostureData = (identityId: string): IdentityPostureData => ({
  identityId,
  os: null,
  mac: null,
  domain: null,
  processes: [],
  apiSessions: {},
});

/** A fact row into its slot of `data`. */
export function putFact(data: IdentityPostureData, row: FactRow): void {
  const slot = { postureCheckId: row.posture_check_id, lastUpdatedAt: new Date(row.updated_at) };
  const value = JSON.parse(row.value) as Record<string, unknown>;
  if (row.kind === 'os') data.os = { ...slot, ...(value as Pick<OsData, 'type' | 'version' | 'build'>) };
  if (row.kind === 'mac') data.mac = { ...slot, addresses: value.addresses as string[] };
  if (row.kind === 'domain') data.domain = { ...slot, domain: value.domain as string };
  // A new map: the one `data` held may be shared with callers of a cached snapshot.
  if (!isFactKind(row.kind)) data.facts = { ...data.facts, [row.kind]: { ...slot, value } };
}

const isFactKind = (kind: string): kind is FactKind => kind === 'os' || kind === 'mac' || kind === 'domain';

/** The kind column's value for a stored slot (a described type's fact is stored under its type id). */
export const kindOfSlot = (slot: { kind: FactKind } | { kind: 'fact'; typeId: string }): string =>
  slot.kind === 'fact' ? slot.typeId : slot.kind;

/** A process from its row, given how to read the backend's is_running. */
export const processOf = <Flag>(r: ProcessRow<Flag>, isRunning: (flag: Flag) => boolean): ProcessData => ({
  postureCheckId: r.posture_check_id,
  lastUpdatedAt: new Date(r.updated_at),
  path: r.path,
  isRunning: isRunning(r.is_running),
  hash: r.hash,
  signerFingerprints: JSON.parse(r.signer_fingerprints) as string[],
});

export const apiSessionOf = (r: ApiSessionRow): ApiSessionPostureData => ({
  apiSessionId: r.api_session_id,
  mfaPassedAt: date(r.mfa_passed_at),
  wokenAt: date(r.woken_at),
  unlockedAt: date(r.unlocked_at),
  sdkInfo: r.sdk_info === null ? null : (JSON.parse(r.sdk_info) as Record<string, string>),
});
