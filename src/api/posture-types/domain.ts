/** DOMAIN (OpenZiti's): the device is in one of the listed Windows domains. */
import { Type } from '@sinclair/typebox';
import { definePostureType } from './descriptor.js';
import { CHECK_TEXT_LIMITS, RESPONSE_TEXT_LIMITS } from './text-limits.js';
import { Strings, Text } from '../resources/texts.js';

export const domain = definePostureType({
  id: 'DOMAIN',
  displayName: 'Windows domain',
  apiName: 'Windows Domain Check',
  openZiti: true,
  operatingSystems: ['Windows', 'WindowsServer'],
  waitingFor: 'its Windows domain',
  userNoun: 'Windows domain',
  description: 'the device is in one of these domains',
  optionFields: [
    {
      name: 'domains',
      schema: Strings('Windows domains, any case', CHECK_TEXT_LIMITS.domain),
      label: 'Domains',
      help: 'One per line; compared without regard to case.',
      required: true,
    },
  ],
  fact: null,
  openZitiResponse: {
    typeId: 'DOMAIN',
    schema: Type.Object({ domain: Text(RESPONSE_TEXT_LIMITS.domain) }),
  },
  reasons: { DOMAIN_MISMATCH: "Join your organisation's Windows domain." },
});
