/** DISK_ENCRYPTION: the system volume (or every fixed volume) is encrypted. */
import { Type } from '@sinclair/typebox';
import type { PostureTypeDescriptor } from './descriptor.js';

export interface DiskEncryptionFact {
  /** null: the agent could not tell (never passing) */
  encrypted: boolean | null;
  /** every fixed volume encrypted (checks with `allVolumes`); null when unknown */
  allVolumesEncrypted?: boolean | null;
  /** why the value is null, in plain words */
  unknownReason?: string;
}

export const diskEncryption: PostureTypeDescriptor = {
  id: 'DISK_ENCRYPTION',
  displayName: 'Disk encryption',
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
      unknownReason: Type.Optional(Type.String({ maxLength: 500 })),
    }),
    collectedOn: ['linux', 'win32', 'darwin'],
  },
  reasons: {
    DISK_NOT_ENCRYPTED:
      'The system disk is not encrypted: turn on disk encryption (BitLocker, FileVault or LUKS).',
    DISK_ENCRYPTION_UNKNOWN: 'Postern could not tell whether the disk is encrypted.',
  },
};
