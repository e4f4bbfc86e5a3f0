/**
 * What every layer knows about a posture check type, said once: its id and words, the fields an
 * administrator sets on a check (schema and the words of the form), the fact the agent reports for it (its
 * schema and the systems the agent can read it on), and the reason codes a failing check carries with their
 * words. The controller validates and documents from it, the console builds the check form from it, the
 * desktop and CLIs word reasons with it, and the agent keeps one collector per system it claims.
 */
import type { TSchema } from '@sinclair/typebox';
import type { OsTypeName } from './os-types.js';

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

/**
 * An OpenZiti response type that answers checks of this type (OS, MAC, DOMAIN, PROCESS): the agent's built-in
 * collectors send it, in OpenZiti's wire form, and the controller validates it field by field.
 */
export interface OpenZitiResponse {
  /** the response's `typeId` (PROCESS_MULTI is answered by PROCESS responses, one per binary) */
  typeId: string;
  /** its fields besides `id` and `typeId`, for the API documents */
  schema: TSchema;
}

export interface PostureTypeDescriptor<Id extends string = string, Code extends string = string> {
  id: Id;
  /** the console's and admin CLI's name for the type */
  displayName: string;
  /** the name `GET /posture-check-types` gives it (OpenZiti's, for OpenZiti's types) */
  apiName: string;
  /** true for OpenZiti's own types; false for Postern's extensions (an OpenZiti client does not know them) */
  openZiti: boolean;
  /** how a user names the check ("disk encryption check") */
  userNoun: string;
  /** one sentence: what a check of this type requires */
  description: string;
  /** the operating systems (OpenZiti's `osType` names) a check of this type can be met on */
  operatingSystems: readonly OsTypeName[];
  optionFields: readonly OptionField[];
  /** null when the agent reports nothing for it through the fact collectors (see `openZitiResponse`) */
  fact: ReportedFact | null;
  /** set for OpenZiti's types answered by the agent's built-in collectors */
  openZitiResponse?: OpenZitiResponse;
  /** what the device has not reported yet, as in "Waiting for this device to report <words>" */
  waitingFor: string;
  /** each failure reason code this type gives, with the words a user reads (the fix included) */
  reasons: Readonly<Record<Code, string>>;
}

/**
 * A descriptor with its id and reason codes kept as literal types, so the registry can derive the closed sets
 * (the check types, the failure codes) the wire contract and the controller's model switch on.
 */
export function definePostureType<const Id extends string, const Code extends string>(
  descriptor: PostureTypeDescriptor<Id, Code>,
): PostureTypeDescriptor<Id, Code> {
  return descriptor;
}
