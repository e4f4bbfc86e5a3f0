/** DISK_ENCRYPTION: the system volume (or every fixed volume) is encrypted. */
import { Type } from '@sinclair/typebox';
import { definePostureType } from './descriptor.js';
import { DESKTOP_OS } from './os-types.js';
import { RESPONSE_TEXT_LIMITS } from './text-limits.js';

export interface DiskEncryptionFact {
  /** null: the agent could not tell (never passing) */
  encrypted: boolean | null;
  /** every fixed volume encrypted (checks with `allVolumes`); null when unknown */
  allVolumesEncrypted?: boolean | null;
  /** why the value is null, in plain words */
  unknownReason?: string;
}

export const diskEncryption = definePostureType({
  id: 'DISK_ENCRYPTION',
  displayName: 'Disk encryption',
  apiName: 'Disk Encryption Check',
  openZiti: false,
  operatingSystems: DESKTOP_OS,
  waitingFor: 'whether its disk is encrypted',
  userNoun: 'disk encryption',
  description: 'the system volume (with allVolumes: every fixed volume) is encrypted',
  optionFields: [
    {
      name: 'allVolumes',
      schema: Type.Boolean({ default: false }),
      label: 'Every fixed volume',
      help: 'Require every fixed disk to be encrypted, not only the system volume.',
      required: false,
    },
  ],
  fact: {
    schema: Type.Object({
      encrypted: Type.Union([Type.Boolean(), Type.Null()]),
      allVolumesEncrypted: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
      unknownReason: Type.Optional(Type.String({ maxLength: RESPONSE_TEXT_LIMITS.unknownReason })),
    }),
    collectedOn: ['linux', 'win32', 'darwin'],
  },
  reasons: {
    DISK_NOT_ENCRYPTED:
      'The system disk is not encrypted: turn on disk encryption (BitLocker, FileVault or LUKS).',
    DISK_VOLUMES_NOT_ENCRYPTED:
      'A fixed disk is not encrypted: turn on encryption for every fixed disk, not only the system disk.',
    DISK_ENCRYPTION_UNKNOWN:
      'Postern could not tell whether the disk is encrypted: make sure the Postern service runs, then try again.',
  },
});
