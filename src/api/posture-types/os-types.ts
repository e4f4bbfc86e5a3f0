/**
 * Canonical spellings of OpenZiti's `osType` enum; input is matched case-insensitively. Its own file so the
 * descriptors and the wire vocabulary (resources/vocabulary.ts, which re-exports it) can both read it.
 */
export const OS_TYPES = ['Windows', 'WindowsServer', 'Linux', 'macOS', 'iOS', 'Android'] as const;
export type OsTypeName = (typeof OS_TYPES)[number];
/** The systems Postern's agent runs on, in OpenZiti's words: where a check read by the agent can be met. */
export const DESKTOP_OS: readonly OsTypeName[] = ['Windows', 'WindowsServer', 'Linux', 'macOS'];
