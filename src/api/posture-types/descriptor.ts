/**
 * What every layer knows about a posture check type, said once: its id and words, the fields an
 * administrator sets on a check (schema and the words of the form), the fact the agent reports for it (its
 * schema and the systems the agent can read it on), and the reason codes a failing check carries with their
 * words. The controller validates and documents from it, the console builds the check form from it, the
 * desktop and CLIs word reasons with it, and the agent keeps one collector per system it claims.
 */
import type { TSchema } from '@sinclair/typebox';

/** The systems the agent runs on, as `process.platform` names them (`darwin` is macOS). */
export const AGENT_PLATFORMS = ['linux', 'win32', 'darwin'] as const;
export type AgentPlatform = (typeof AGENT_PLATFORMS)[number];

/** One field of a check of this type, as the administrator sets it. */
export interface OptionField {
  /** the wire name (OpenZiti's where it has one) */
  name: string;
  /** its TypeBox schema: validation, the API documents and the console form read it */
  schema: TSchema;
  /** the form's label */
  label: string;
  /** one sentence under the field */
  help: string;
  required: boolean;
}

/** The fact the agent reports for checks of this type (`POST /posture-response-bulk`, `typeId` = the type). */
export interface ReportedFact {
  /** the response's own fields (besides `id` and `typeId`) */
  schema: TSchema;
  /** the systems the agent has a collector for; a test fails the build when one is missing */
  collectedOn: readonly AgentPlatform[];
  /** where reading it needs the privileged agent service, said to the user when it cannot be read */
  needsService?: readonly AgentPlatform[];
}

export interface PostureTypeDescriptor {
  id: string;
  /** the console's and admin CLI's name for the type */
  displayName: string;
  /** how a user names the check ("disk encryption check") */
  userNoun: string;
  /** one sentence: what a check of this type requires */
  description: string;
  optionFields: readonly OptionField[];
  /** null when the agent reports nothing for it (the controller reads it from the API session) */
  fact: ReportedFact | null;
  /** each failure reason code this type gives, with the words a user reads (the fix included) */
  reasons: Readonly<Record<string, string>>;
}
