/**
 * The posture check form's state, one slot per type's fields, and the body the API takes for the chosen type
 * (OpenZiti's field names). Values go to the API as typed: the API validates them and names each problem by
 * field, and the form shows that next to the input (the one source of truth for what is valid).
 */
import { attributesOf, linesOf } from '../../components/fields.js';
import type { PostureCheck, ProcessRuleWire } from '../../api/types.js';
import {
  POSTURE_TYPE_DESCRIPTORS,
  POSTURE_TYPE_IDS,
  postureTypeDescriptor,
  type PostureTypeDescriptor,
  type PostureTypeId,
} from '../../../../src/api/posture-types/index.js';
import { optionBody, optionValuesOf, type OptionValues } from './type-fields/descriptor-values.js';

/** Every type the registry describes (src/api/posture-types), with its name from its descriptor. */
export const CHECK_TYPES = POSTURE_TYPE_IDS;
export type CheckType = PostureTypeId;

export const CHECK_TYPE_NAMES = Object.fromEntries(
  POSTURE_TYPE_DESCRIPTORS.map((d) => [d.id, d.displayName]),
) as Record<CheckType, string>;

/** OpenZiti's types have forms of their own (type-fields/); every other type's form is built from its descriptor. */
const HAND_BUILT: readonly string[] = ['OS', 'MAC', 'DOMAIN', 'PROCESS', 'PROCESS_MULTI', 'MFA'];
export const describedType = (typeId: string): PostureTypeDescriptor | undefined =>
  HAND_BUILT.includes(typeId) ? undefined : postureTypeDescriptor(typeId);

export const OS_TYPES = ['Windows', 'WindowsServer', 'Linux', 'macOS', 'iOS', 'Android'] as const;

export interface ProcessRuleState {
  osType: string;
  path: string;
  /** one per line */
  hashes: string;
  signerFingerprints: string;
}

export interface CheckFormState {
  typeId: CheckType;
  name: string;
  attributes: string;
  remediation: string;
  /** versions: one semver range per line */
  operatingSystems: { type: string; versions: string }[];
  macAddresses: string;
  domains: string;
  process: ProcessRuleState;
  semantic: 'AllOf' | 'AnyOf';
  processes: ProcessRuleState[];
  /** as typed; -1 or empty for none */
  timeoutSeconds: string;
  promptOnWake: boolean;
  promptOnUnlock: boolean;
  ignoreLegacyEndpoints: boolean;
  /** a described type's fields (type-fields/descriptor-fields.tsx), by type */
  options: Partial<Record<CheckType, OptionValues>>;
}

export const emptyRule = (): ProcessRuleState => ({
  osType: 'Linux',
  path: '',
  hashes: '',
  signerFingerprints: '',
});

const ruleState = (rule: ProcessRuleWire | undefined): ProcessRuleState =>
  rule
    ? {
        osType: rule.osType,
        path: rule.path,
        hashes: (rule.hashes ?? []).join('\n'),
        // PROCESS_MULTI's rules list their signers; a PROCESS check has one (`signerFingerprint`).
        signerFingerprints: (
          rule.signerFingerprints ?? (rule.signerFingerprint ? [rule.signerFingerprint] : [])
        ).join('\n'),
      }
    : emptyRule();

export function initialState(check?: PostureCheck): CheckFormState {
  return {
    typeId: (check?.typeId as CheckType | undefined) ?? 'OS',
    name: check?.name ?? '',
    attributes: check?.roleAttributes.join(', ') ?? '',
    remediation: check?.remediation ?? '',
    operatingSystems: check?.operatingSystems?.map((o) => ({
      type: o.type,
      versions: o.versions.join('\n'),
    })) ?? [{ type: 'Linux', versions: '' }],
    macAddresses: check?.macAddresses?.join('\n') ?? '',
    domains: check?.domains?.join('\n') ?? '',
    process: ruleState(check?.process),
    semantic: check?.semantic === 'AllOf' ? 'AllOf' : 'AnyOf',
    processes: check?.processes?.map(ruleState) ?? [emptyRule()],
    timeoutSeconds: check?.timeoutSeconds !== undefined ? String(check.timeoutSeconds) : '-1',
    promptOnWake: check?.promptOnWake ?? false,
    promptOnUnlock: check?.promptOnUnlock ?? false,
    ignoreLegacyEndpoints: check?.ignoreLegacyEndpoints ?? false,
    options: Object.fromEntries(
      POSTURE_TYPE_DESCRIPTORS.filter((d) => describedType(d.id)).map((d) => [
        d.id,
        optionValuesOf(d, check?.typeId === d.id ? (check as unknown as Record<string, unknown>) : undefined),
      ]),
    ),
  };
}

const ruleBody = (rule: ProcessRuleState) => ({
  osType: rule.osType,
  path: rule.path.trim(),
  hashes: linesOf(rule.hashes),
  signerFingerprints: linesOf(rule.signerFingerprints),
});

/** A number when it reads as one; otherwise the text itself, for the API to refuse by name. */
const numberOrText = (text: string): number | string =>
  text.trim() === '' ? -1 : /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text;

function typeFields(state: CheckFormState): Record<string, unknown> {
  switch (state.typeId) {
    case 'OS':
      return {
        operatingSystems: state.operatingSystems.map((o) => ({
          type: o.type,
          versions: linesOf(o.versions),
        })),
      };
    case 'MAC':
      return { macAddresses: linesOf(state.macAddresses) };
    case 'DOMAIN':
      return { domains: linesOf(state.domains) };
    case 'PROCESS': {
      // OpenZiti's PROCESS check has one signer, `signerFingerprint` (the API refuses `signerFingerprints`
      // there by name); several lines go as typed, for the API to refuse as no fingerprint.
      const { signerFingerprints, ...rule } = ruleBody(state.process);
      const signer = signerFingerprints.join('\n');
      return { process: signer ? { ...rule, signerFingerprint: signer } : rule };
    }
    case 'PROCESS_MULTI':
      return { semantic: state.semantic, processes: state.processes.map(ruleBody) };
    case 'MFA':
      return {
        timeoutSeconds: numberOrText(state.timeoutSeconds),
        promptOnWake: state.promptOnWake,
        promptOnUnlock: state.promptOnUnlock,
        ignoreLegacyEndpoints: state.ignoreLegacyEndpoints,
      };
    default: {
      const descriptor = describedType(state.typeId);
      return descriptor ? optionBody(descriptor, state.options[state.typeId] ?? {}) : {};
    }
  }
}

export function bodyOf(state: CheckFormState): Record<string, unknown> {
  return {
    typeId: state.typeId,
    name: state.name.trim(),
    roleAttributes: attributesOf(state.attributes),
    remediation: state.remediation.trim() || null,
    ...typeFields(state),
  };
}

/** The fields each type's inputs show errors for (the rest are listed above the buttons). */
export const CLAIMED_FIELDS = [
  'typeId',
  'name',
  'roleAttributes',
  'remediation',
  'operatingSystems',
  'macAddresses',
  'domains',
  'process',
  'processes',
  'semantic',
  'timeoutSeconds',
  ...POSTURE_TYPE_DESCRIPTORS.filter((d) => describedType(d.id)).flatMap((d) =>
    d.optionFields.map((f) => f.name),
  ),
];
