/**
 * The port every per-OS collector implements. It produces the posture response bodies of `src/api`
 * (OpenZiti's legacy REST format, `POST /posture-response-bulk`), so the reporter can send them as they are.
 * `id` is always the id of the posture check (query) being answered; the caller supplies it because only the
 * service list knows which checks apply.
 */

import type {
  DomainPostureResponse,
  MacPostureResponse,
  OsPostureResponse,
  ProcessPostureResponse,
} from '../../api/posture-responses.js';

// The wire types live in src/api (shared with the renderer); re-exported so collector code keeps one import.
export type {
  DomainPostureResponse,
  MacPostureResponse,
  OsPostureResponse,
  PostureResponse,
  ProcessPostureResponse,
} from '../../api/posture-responses.js';

/** One process path to check; PROCESS_MULTI queries contribute one entry per listed path. */
export interface ProcessQuery {
  id: string;
  path: string;
}

/**
 * Collects the device facts posture checks ask about. Methods reject only when the facts cannot be
 * known at all (for example the OS command failed); a missing or unreadable binary is an answer
 * (`isRunning: false` or `hash: ''`), not an error.
 */
export interface PostureCollector {
  collectOs(id: string): Promise<OsPostureResponse>;
  collectMac(id: string): Promise<MacPostureResponse>;
  collectDomain(id: string): Promise<DomainPostureResponse>;
  /** One answer per query, in query order. */
  collectProcesses(queries: readonly ProcessQuery[]): Promise<ProcessPostureResponse[]>;
}
