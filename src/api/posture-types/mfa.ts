/** MFA (OpenZiti's): the API session passed TOTP, within the timeout and again after a wake or unlock. */
import { Type } from '@sinclair/typebox';
import { definePostureType } from './descriptor.js';
import { OS_TYPES } from './os-types.js';

export const mfa = definePostureType({
  id: 'MFA',
  displayName: 'MFA (authenticator code)',
  apiName: 'MFA Check',
  openZiti: true,
  operatingSystems: OS_TYPES,
  waitingFor: 'its authenticator code',
  userNoun: 'authenticator code',
  description:
    'the API session passed TOTP (within the timeout, and again after a wake or unlock when asked)',
  optionFields: [
    {
      name: 'timeoutSeconds',
      schema: Type.Integer({ description: 'seconds a TOTP pass lasts; -1 or 0: no limit' }),
      label: 'Timeout (seconds)',
      help: 'How long a code lasts; -1 or 0: until the session ends.',
      required: false,
    },
    {
      name: 'promptOnWake',
      schema: Type.Boolean(),
      label: 'Prompt on wake',
      help: 'Ask for a new code when the device wakes from sleep.',
      required: false,
    },
    {
      name: 'promptOnUnlock',
      schema: Type.Boolean(),
      label: 'Prompt on unlock',
      help: 'Ask for a new code when the device is unlocked.',
      required: false,
    },
    {
      name: 'ignoreLegacyEndpoints',
      schema: Type.Boolean(),
      label: 'Ignore legacy endpoints',
      help: 'Do not time out clients that cannot prompt for a new code.',
      required: false,
    },
  ],
  fact: null,
  reasons: {
    MFA_REQUIRED: 'Enter your authenticator code.',
    MFA_TIMED_OUT: 'Your last authenticator code has expired: enter a new one.',
    MFA_NEEDED_AFTER_WAKE: 'This device woke from sleep: enter your authenticator code.',
    MFA_NEEDED_AFTER_UNLOCK: 'This device was unlocked: enter your authenticator code.',
  },
});
