/**
 * The posture data rows as store/repositories/posture-data-queries.ts reads them, on either database: an
 * identity's facts, processes and API sessions come as the rows of one statement (`PostureRow`), each of
 * them one table's row with the other tables' columns empty.
 */
import type { ApiSessionPatch } from '../posture-repository.js';
import type {
  ApiSessionPostureData,
  DomainData,
  IdentityPostureData,
  MacData,
  OsData,
  ProcessData,
  ReportedFactData,
} from '../../posture-model.js';
import { withFields } from '../../../src/common/with-fields.js';

/** OpenZiti's facts; any other kind is a described type's fact, the kind being its type id (`FIREWALL`). */
export type FactKind = 'os' | 'mac' | 'domain';

export interface FactRow {
  kind: string;
  posture_check_id: string;
  value: string;
  updated_at: string;
}

/** A posture_processes row, is_running read as 1 or 0 (SQLite's integer, PostgreSQL's boolean alike). */
export interface ProcessRow {
  path: string;
  posture_check_id: string;
  is_running: number;
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
  // Keyed by API session id: without a prototype, such an object is a dictionary from the start and shares
  // one hidden class, where `{}` would take a new one for every id it is given (src/common/with-fields.ts).
  apiSessions: Object.create(null) as IdentityPostureData['apiSessions'],
});

/** A fact row into its slot of `data`. */
export function putFact(data: IdentityPostureData, row: FactRow): void {
  const slot = { postureCheckId: row.posture_check_id, lastUpdatedAt: new Date(row.updated_at) };
  const value = JSON.parse(row.value) as Record<string, unknown>;
  if (row.kind === 'os') data.os = withFields(slot, value as Pick<OsData, 'type' | 'version' | 'build'>);
  if (row.kind === 'mac') data.mac = withFields(slot, { addresses: value.addresses as string[] });
  if (row.kind === 'domain') data.domain = withFields(slot, { domain: value.domain as string });
  // A new map: the one `data` held may be shared with callers of a cached snapshot.
  if (!isFactKind(row.kind))
    data.facts = withFields(data.facts ?? {}, { [row.kind]: withFields(slot, { value }) });
}

const isFactKind = (kind: string): kind is FactKind => kind === 'os' || kind === 'mac' || kind === 'domain';

/** The kind column's value for a stored slot (a described type's fact is stored under its type id). */
export const kindOfSlot = (slot: { kind: FactKind } | { kind: 'fact'; typeId: string }): string =>
  slot.kind === 'fact' ? slot.typeId : slot.kind;

export const processOf = (r: ProcessRow): ProcessData => ({
  postureCheckId: r.posture_check_id,
  lastUpdatedAt: new Date(r.updated_at),
  path: r.path,
  isRunning: r.is_running === 1,
  hash: r.hash,
  signerFingerprints: JSON.parse(r.signer_fingerprints) as string[],
});

/** A fact's row; JSON.stringify escapes lone surrogates and NUL, so the value always comes back as written. */
const factRow = (
  kind: string,
  slot: { postureCheckId: string; lastUpdatedAt: Date },
  value: object,
): FactRow => ({
  kind,
  posture_check_id: slot.postureCheckId,
  value: JSON.stringify(value),
  updated_at: slot.lastUpdatedAt.toISOString(),
});

export const osRow = (os: OsData) =>
  factRow('os', os, { type: os.type, version: os.version, build: os.build });
export const macRow = (mac: MacData) => factRow('mac', mac, { addresses: mac.addresses });
export const domainRow = (domain: DomainData) => factRow('domain', domain, { domain: domain.domain });
/** a described type's fact, stored under its type id */
export const reportedFactRow = (typeId: string, fact: ReportedFactData) => factRow(typeId, fact, fact.value);

export const processRowOf = (p: ProcessData): ProcessRow => ({
  path: p.path,
  posture_check_id: p.postureCheckId,
  is_running: p.isRunning ? 1 : 0,
  hash: p.hash,
  signer_fingerprints: JSON.stringify(p.signerFingerprints),
  updated_at: p.lastUpdatedAt.toISOString(),
});

export const apiSessionOf = (r: ApiSessionRow): ApiSessionPostureData => ({
  apiSessionId: r.api_session_id,
  mfaPassedAt: date(r.mfa_passed_at),
  wokenAt: date(r.woken_at),
  unlockedAt: date(r.unlocked_at),
  sdkInfo: r.sdk_info === null ? null : (JSON.parse(r.sdk_info) as Record<string, string>),
});

/** Which table a `PostureRow` comes from. */
export type PosturePart = 'fact' | 'process' | 'session';

/** One row of an identity's posture data: `part` says which of the three it is, the others' columns are null. */
export type PostureRow = { identity_id: string; part: PosturePart } & FactRow & ProcessRow & ApiSessionRow;

/** A row of any part into its place in `data`. */
export function putRow(data: IdentityPostureData, row: PostureRow): void {
  if (row.part === 'fact') putFact(data, row);
  else if (row.part === 'process') data.processes.push(processOf(row));
  else data.apiSessions[row.api_session_id] = apiSessionOf(row);
}
