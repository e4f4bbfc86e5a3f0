/** PROCESS and PROCESS_MULTI (OpenZiti's): binaries that must run, from approved builds and signers. */
import { Type } from '@sinclair/typebox';
import { definePostureType } from './descriptor.js';
import { OsTypeSchema } from './os.js';
import { CHECK_TEXT_LIMITS, RESPONSE_TEXT_LIMITS } from './text-limits.js';
import { Strings, Text } from '../resources/texts.js';

const processRule = {
  osType: OsTypeSchema,
  /** the spelling the interface specification's PROCESS_MULTI example uses; `osType` wins when both are given */
  os: Type.Optional(OsTypeSchema),
  path: Text(CHECK_TEXT_LIMITS.path, 'absolute path of the binary'),
  hashes: Type.Optional(
    Strings('allowed sha256 (64 hex) or sha512 (128 hex) digests of the binary', CHECK_TEXT_LIMITS.hash),
  ),
};

/** One binary's report: PROCESS_MULTI checks are answered by one of these per binary. */
const processResponse = {
  typeId: 'PROCESS',
  schema: Type.Object({
    path: Text(RESPONSE_TEXT_LIMITS.path),
    isRunning: Type.Optional(Type.Boolean({ description: 'left out: not running' })),
    hash: Type.Optional(Text(RESPONSE_TEXT_LIMITS.hash, 'sha256 or sha512 of the binary, hex')),
    signerFingerprints: Type.Optional(Strings('sha1 thumbprints, hex', RESPONSE_TEXT_LIMITS.hexEntry)),
  }),
};

const processReasons = {
  PROCESS_NOT_RUNNING: 'Start the program the policy requires.',
  PROCESS_HASH_NOT_APPROVED: 'The program runs but is not an approved build: install the approved version.',
  PROCESS_SIGNER_NOT_APPROVED:
    'The program runs but is not signed by an approved publisher: reinstall it from its publisher.',
} as const;

const PROCESS_OS = ['Windows', 'WindowsServer', 'macOS', 'Linux'] as const;

export const processDescriptor = definePostureType({
  id: 'PROCESS',
  displayName: 'Process',
  apiName: 'Process Check',
  openZiti: true,
  operatingSystems: PROCESS_OS,
  waitingFor: 'its running programs',
  userNoun: 'running program',
  description: 'this binary runs, from an allowed build and signer',
  optionFields: [
    {
      name: 'process',
      schema: Type.Object({
        ...processRule,
        signerFingerprint: Type.Optional(Text(CHECK_TEXT_LIMITS.fingerprint, 'sha1 thumbprint (40 hex)')),
      }),
      label: 'Process',
      help: 'The OS, the absolute path of the binary, and optionally its approved hashes and signer.',
      required: true,
    },
  ],
  fact: null,
  openZitiResponse: processResponse,
  reasons: processReasons,
});

export const processMultiDescriptor = definePostureType({
  id: 'PROCESS_MULTI',
  displayName: 'Several processes',
  apiName: 'Process Multi Check',
  openZiti: true,
  operatingSystems: PROCESS_OS,
  waitingFor: 'its running programs',
  userNoun: 'running programs',
  description: 'all (AllOf) or one (AnyOf, OneOf) of these binaries run',
  optionFields: [
    {
      name: 'semantic',
      schema: Type.Union([Type.Literal('AllOf'), Type.Literal('AnyOf'), Type.Literal('OneOf')]),
      label: 'Semantic',
      help: 'AllOf: every binary must run; AnyOf (OneOf): one of them is enough.',
      required: true,
    },
    {
      name: 'processes',
      schema: Type.Array(
        Type.Object({
          ...processRule,
          signerFingerprints: Type.Optional(
            Strings('sha1 thumbprints (40 hex)', CHECK_TEXT_LIMITS.fingerprint),
          ),
        }),
      ),
      label: 'Processes',
      help: 'Each binary with its OS, absolute path, approved hashes and signers.',
      required: true,
    },
  ],
  fact: null,
  openZitiResponse: processResponse,
  reasons: processReasons,
});
