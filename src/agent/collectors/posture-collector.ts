/**
 * The port every per-OS collector implements, and the posture response bodies it produces.
 *
 * The bodies are the OpenZiti legacy REST wire format (`POST /posture-response-bulk`), so the reporter can
 * send them as they are. `id` is always the id of the posture check (query) being answered; the caller
 * supplies it because only the service list knows which checks apply.
 */

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
  /** The path exactly as the query gave it (the controller keys PROCESS_MULTI answers by it). */
  path: string;
  isRunning: boolean;
  /** sha256 of the file at `path`, lower-case hex; `''` when the file cannot be read. */
  hash: string;
  /** SHA-1 thumbprints of the Authenticode certificates, lower-case hex; empty off Windows. */
  signerFingerprints: string[];
}

export type PostureResponse =
  OsPostureResponse | MacPostureResponse | DomainPostureResponse | ProcessPostureResponse;

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
