/** FIREWALL: the host firewall is on. */
import { Type } from '@sinclair/typebox';
import type { PostureTypeDescriptor } from './descriptor.js';

export interface FirewallFact {
  enabled: boolean | null;
  unknownReason?: string;
}

export const firewall: PostureTypeDescriptor = {
  id: 'FIREWALL',
  displayName: 'Firewall',
  userNoun: 'firewall',
  description: 'the host firewall is enabled',
  optionFields: [],
  fact: {
    schema: Type.Object({
      enabled: Type.Union([Type.Boolean(), Type.Null()]),
      unknownReason: Type.Optional(Type.String({ maxLength: 500 })),
    }),
    collectedOn: ['linux', 'win32', 'darwin'],
  },
  reasons: {
    FIREWALL_OFF: 'The firewall is off: turn it on in the system settings.',
    FIREWALL_UNKNOWN: 'Postern could not tell whether the firewall is on.',
  },
};
