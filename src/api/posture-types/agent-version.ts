/** AGENT_VERSION: the agent's version (the `sdkInfo.version` it signs in with) is within a semver range. */
import { Type } from '@sinclair/typebox';
import { definePostureType } from './descriptor.js';
import { DESKTOP_OS } from './os-types.js';
import { CHECK_TEXT_LIMITS } from './text-limits.js';

export const agentVersion = definePostureType({
  id: 'AGENT_VERSION',
  displayName: 'Agent version',
  apiName: 'Agent Version Check',
  openZiti: false,
  operatingSystems: DESKTOP_OS,
  waitingFor: 'its Postern version',
  userNoun: 'Postern version',
  description: "the agent's version, as it signs in, is within the semver range",
  optionFields: [
    {
      name: 'versions',
      schema: Type.String({ minLength: 1, maxLength: CHECK_TEXT_LIMITS.versionRange }),
      label: 'Allowed versions (semver range)',
      help: 'For example ">=1.4.0 <2": a space is AND, || is OR.',
      required: true,
    },
  ],
  fact: null,
  reasons: {
    AGENT_VERSION_OUT_OF_RANGE: 'This version of Postern is not allowed: update Postern.',
    AGENT_VERSION_UNKNOWN: 'The agent did not say its version when it signed in: update Postern.',
  },
});
