/**
 * How long each text a posture check body carries may be: enforced by the check modules' parsers (which
 * validate check bodies) and published in the API documents (posture/typed-bodies.ts), so both say the same.
 */
export const CHECK_TEXT_LIMITS = {
  /** a binary's absolute path (as a posture response's) */
  path: 4096,
  /** a Windows domain (a DNS name is at most 253) */
  domain: 255,
  /** one semver range of an OS entry */
  versionRange: 255,
  /** a MAC address as typed, separators and surrounding white space included */
  mac: 64,
  /** a sha256 or sha512 digest in hex */
  hash: 128,
  /** a sha1 thumbprint in hex */
  fingerprint: 40,
} as const;
