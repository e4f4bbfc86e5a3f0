/**
 * Posture response bodies in OpenZiti's legacy REST format (`POST /posture-response` and
 * `/posture-response-bulk`). `id` is always the id of the posture check (query) being answered, except for
 * ENDPOINT_STATE, which answers no check.
 */
import type { Static } from '@sinclair/typebox';
// Types only: the schemas are the controller's to run (see schemas.ts).
import type { PostureResponseReplySchema, PostureResponseServiceSchema } from './schemas.js';
import type { DiskEncryptionFact, FirewallFact, ScreenLockFact } from './posture-types/index.js';

export interface OsPostureResponse {
  id: string;
  typeId: 'OS';
  /** `Linux`, `Windows`, `WindowsServer` or `macOS`; the controller compares it case-insensitively. */
  type: string;
  /** Three-part version the controller can parse as semver (a Linux kernel release may carry a suffix). */
  version: string;
  build: string;
}

export interface MacPostureResponse {
  id: string;
  typeId: 'MAC';
  /** Lower-case `aa:bb:cc:dd:ee:ff`, deduplicated and sorted so equal sets compare equal. */
  macAddresses: string[];
}

export interface DomainPostureResponse {
  id: string;
  typeId: 'DOMAIN';
  /** Windows NetBIOS domain or workgroup; always `''` on Linux and macOS. */
  domain: string;
}

export interface ProcessPostureResponse {
  id: string;
  typeId: 'PROCESS';
  /** The path exactly as the query gave it (the controller keys process answers by it). */
  path: string;
  isRunning: boolean;
  /** sha256 of the file at `path`, lower-case hex; `''` when the file cannot be read. */
  hash: string;
  /** SHA-1 thumbprints of the Authenticode certificates, lower-case hex; empty off Windows. */
  signerFingerprints: string[];
}

/** Sent alone, at once, on wake or unlock; it starts the MFA grace period of checks that prompt on it. */
export interface EndpointStatePostureResponse {
  id: string;
  typeId: 'ENDPOINT_STATE';
  woken?: boolean;
  unlocked?: boolean;
}

/** The answer to a check whose type's descriptor declares a fact (src/api/posture-types): its fields as they are. */
export type DiskEncryptionPostureResponse = { id: string; typeId: 'DISK_ENCRYPTION' } & DiskEncryptionFact;
export type FirewallPostureResponse = { id: string; typeId: 'FIREWALL' } & FirewallFact;
export type ScreenLockPostureResponse = { id: string; typeId: 'SCREEN_LOCK' } & ScreenLockFact;

/** Answers the agent's fact collectors give (src/agent/collectors/facts), one per type. */
export type FactPostureResponse =
  DiskEncryptionPostureResponse | FirewallPostureResponse | ScreenLockPostureResponse;

/** What a collector produces: the answers to posture queries. */
export type PostureResponse =
  | OsPostureResponse
  | MacPostureResponse
  | DomainPostureResponse
  | ProcessPostureResponse
  | FactPostureResponse;

export type AnyPostureResponse = PostureResponse | EndpointStatePostureResponse;

/** A service whose timers changed because of the response (after a wake/unlock: MFA grace, 300 s). */
export type PostureResponseService = Static<typeof PostureResponseServiceSchema>;

export type PostureResponseReply = Static<typeof PostureResponseReplySchema>;
