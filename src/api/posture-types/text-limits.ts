/**
 * How long each text a posture check body or a posture response carries may be: enforced by the controller's
 * parsers (posture/checks, posture/response-items.ts) and published in the API documents, so both say the
 * same. Its own file so the descriptors and the wire resources read the same numbers without importing each
 * other (resources/posture-checks.ts and resources/posture-responses.ts re-export them).
 */
export const CHECK_TEXT_LIMITS = {
  /** a binary's absolute path (as a posture response's) */
  path: 4096,
  /** a Windows domain (a DNS name is at most 253) */
  domain: 255,
  /** one semver range of an OS entry (and of an AGENT_VERSION check) */
  versionRange: 255,
  /** a MAC address as typed, separators and surrounding white space included */
  mac: 64,
  /** a sha256 or sha512 digest in hex */
  hash: 128,
  /** a sha1 thumbprint in hex */
  fingerprint: 40,
} as const;

/** Each text field's cap in a posture response. */
export const RESPONSE_TEXT_LIMITS = {
  id: 255,
  osType: 64,
  osVersion: 255,
  osBuild: 255,
  domain: 255,
  path: 4096,
  hash: 256,
  /** one MAC address or signer thumbprint, separators included */
  hexEntry: 256,
  /** a fact's `unknownReason`: why the agent could not read it, in plain words */
  unknownReason: 500,
} as const;
