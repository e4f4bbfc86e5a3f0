/** FIREWALL: the host firewall is on. */
import { Type } from '@sinclair/typebox';
import { definePostureType } from './descriptor.js';
import { DESKTOP_OS } from './os-types.js';
import { RESPONSE_TEXT_LIMITS } from './text-limits.js';

export interface FirewallFact {
  enabled: boolean | null;
  unknownReason?: string;
}

export const firewall = definePostureType({
  id: 'FIREWALL',
  displayName: 'Firewall',
  apiName: 'Firewall Check',
  openZiti: false,
  operatingSystems: DESKTOP_OS,
  waitingFor: 'whether its firewall is on',
  userNoun: 'firewall',
  description: 'the host firewall is enabled',
  optionFields: [],
  fact: {
    schema: Type.Object({
      enabled: Type.Union([Type.Boolean(), Type.Null()]),
      unknownReason: Type.Optional(Type.String({ maxLength: RESPONSE_TEXT_LIMITS.unknownReason })),
    }),
    collectedOn: ['linux', 'win32', 'darwin'],
  },
  reasons: {
    FIREWALL_OFF: 'The firewall is off: turn it on in the system settings.',
    FIREWALL_UNKNOWN:
      'Postern could not tell whether the firewall is on: make sure the Postern service runs, then try again.',
  },
});
