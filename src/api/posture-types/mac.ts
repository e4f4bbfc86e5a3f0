/** MAC (OpenZiti's): the device has one of the listed network adapters. */
import { Type } from '@sinclair/typebox';
import { definePostureType } from './descriptor.js';
import { CHECK_TEXT_LIMITS, RESPONSE_TEXT_LIMITS } from './text-limits.js';
import { Strings } from '../resources/texts.js';

export const mac = definePostureType({
  id: 'MAC',
  displayName: 'MAC address',
  apiName: 'MAC Address Check',
  openZiti: true,
  operatingSystems: ['Windows', 'WindowsServer', 'Linux', 'macOS', 'Android'],
  waitingFor: 'its network adapters',
  userNoun: 'network adapter',
  description: 'the device has one of these MACs',
  optionFields: [
    {
      name: 'macAddresses',
      schema: Strings('aa:bb:cc:dd:ee:ff or AA-BB-...', CHECK_TEXT_LIMITS.mac),
      label: 'MAC addresses',
      help: 'One per line: aa:bb:cc:dd:ee:ff, AA-BB-CC-DD-EE-FF or aabbccddeeff.',
      required: true,
    },
  ],
  fact: null,
  openZitiResponse: {
    typeId: 'MAC',
    schema: Type.Object({
      macAddresses: Strings('as the device reports them', RESPONSE_TEXT_LIMITS.hexEntry),
    }),
  },
  reasons: { MAC_NOT_ALLOWED: 'Connect from an allowed network adapter.' },
});
