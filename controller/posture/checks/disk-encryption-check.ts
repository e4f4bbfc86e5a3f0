/**
 * DISK_ENCRYPTION check: the system volume is encrypted, and with `allVolumes` every fixed volume too, as the
 * agent reported it (`encrypted`, `allVolumesEncrypted`). A value the agent could not read (null) fails with
 * DISK_ENCRYPTION_UNKNOWN; a known "not encrypted" is said first, as it is the one the user can fix.
 */
import { diskEncryption } from '../../../src/api/posture-types/disk-encryption.js';
import {
  describedCheck,
  factOf,
  failing,
  flagOf,
  noDataYet,
  passing,
  unknownFact,
} from './described-check.js';

export const diskEncryptionCheck = describedCheck(diskEncryption, {
  evaluate(check, data) {
    const allVolumes = check.options.allVolumes === true;
    const expectedValue = allVolumes ? { encrypted: true, allVolumesEncrypted: true } : { encrypted: true };
    const fact = factOf(data, diskEncryption.id);
    if (!fact) return noDataYet(diskEncryption, expectedValue);
    const encrypted = flagOf(fact.value.encrypted);
    const all = flagOf(fact.value.allVolumesEncrypted);
    const actualValue = allVolumes ? { encrypted, allVolumesEncrypted: all } : { encrypted };
    if (encrypted === false)
      return failing(actualValue, expectedValue, 'the system disk is not encrypted', {
        code: 'DISK_NOT_ENCRYPTED',
      });
    if (allVolumes && all === false)
      return failing(actualValue, expectedValue, 'a fixed disk is not encrypted', {
        code: 'DISK_VOLUMES_NOT_ENCRYPTED',
      });
    if (encrypted === null || (allVolumes && all === null))
      return unknownFact(
        'DISK_ENCRYPTION_UNKNOWN',
        fact,
        actualValue,
        expectedValue,
        'whether its disks are encrypted',
      );
    return passing(actualValue, expectedValue);
  },
});
