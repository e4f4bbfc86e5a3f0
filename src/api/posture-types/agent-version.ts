/** AGENT_VERSION: the agent's version (the `sdkInfo.version` it signs in with) is within a semver range. */
import { Type } from '@sinclair/typebox';
import type { PostureTypeDescriptor } from './descriptor.js';

export const agentVersion: PostureTypeDescriptor = {
  id: 'AGENT_VERSION',
  displayName: 'Agent version',
  userNoun: 'Postern version',
  description: "the agent's version, as it signs in, is within the semver range",
  optionFields: [
    {
      name: 'versions',
      schema: Type.String({ minLength: 1, maxLength: 255 }),
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
};
