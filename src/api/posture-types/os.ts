/** OS (OpenZiti's): the device runs one of the listed operating systems, in one of its version ranges. */
import { Type } from '@sinclair/typebox';
import { definePostureType } from './descriptor.js';
import { OS_TYPES } from './os-types.js';
import { CHECK_TEXT_LIMITS, RESPONSE_TEXT_LIMITS } from './text-limits.js';
import { Strings, Text } from '../resources/texts.js';

/** An `osType` as the wire takes it (any case). */
export const OsTypeSchema = Type.Union(
  OS_TYPES.map((t) => Type.Literal(t)),
  { description: 'any case' },
);

export const os = definePostureType({
  id: 'OS',
  displayName: 'Operating system',
  apiName: 'Operating System Check',
  openZiti: true,
  operatingSystems: OS_TYPES,
  waitingFor: 'its operating system',
  userNoun: 'operating system',
  description: 'the device runs one of these operating systems, in one of its version ranges',
  optionFields: [
    {
      name: 'operatingSystems',
      schema: Type.Array(
        Type.Object({
          type: OsTypeSchema,
          versions: Type.Optional(
            Strings('semver ranges, e.g. >=10.0.19041', CHECK_TEXT_LIMITS.versionRange),
          ),
        }),
        { description: 'one entry per OS type' },
      ),
      label: 'Operating systems',
      help: 'One entry per OS type, each with its allowed version ranges (none: every version).',
      required: true,
    },
  ],
  fact: null,
  openZitiResponse: {
    typeId: 'OS',
    schema: Type.Object({
      type: Text(RESPONSE_TEXT_LIMITS.osType),
      version: Text(RESPONSE_TEXT_LIMITS.osVersion),
      build: Type.Optional(Text(RESPONSE_TEXT_LIMITS.osBuild)),
    }),
  },
  reasons: {
    OS_TYPE_NOT_ALLOWED: 'This operating system is not one the policy allows: use another device.',
    OS_VERSION_OUT_OF_RANGE: 'This operating system version is not allowed: update it.',
  },
});
