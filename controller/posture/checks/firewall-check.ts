/** FIREWALL check: the host firewall is on, as the agent reported it (`enabled`; null fails as unknown). */
import { firewall } from '../../../src/api/posture-types/firewall.js';
import {
  describedCheck,
  factOf,
  failing,
  flagOf,
  noDataYet,
  passing,
  unknownFact,
} from './described-check.js';

export const firewallCheck = describedCheck(firewall, {
  evaluate(_check, data) {
    const expectedValue = { enabled: true };
    const fact = factOf(data, firewall.id);
    if (!fact) return noDataYet(firewall, expectedValue);
    const enabled = flagOf(fact.value.enabled);
    const actualValue = { enabled };
    if (enabled === false)
      return failing(actualValue, expectedValue, 'the firewall is off', { code: 'FIREWALL_OFF' });
    if (enabled === null)
      return unknownFact('FIREWALL_UNKNOWN', fact, actualValue, expectedValue, 'whether its firewall is on');
    return passing(actualValue, expectedValue);
  },
});
