/**
 * AGENT_VERSION check: the version the agent signed in with (its API session's `sdkInfo.version`, OpenZiti's
 * field) is within the check's semver range, in OpenZiti's range syntax (semver-range.ts). Nothing is
 * reported for it: an API session whose posture row is not written yet has NO_DATA_YET; one that gave no
 * version, or one that is no version number, fails with AGENT_VERSION_UNKNOWN.
 */
import { agentVersion } from '../../../src/api/posture-types/agent-version.js';
import { describedCheck, failing, noDataYet, passing } from './described-check.js';
import { cachedRange, matchRanges, parseReportedVersion, parseVersionRange } from './semver-range.js';

export const agentVersionCheck = describedCheck(agentVersion, {
  // the version the API session signed in with: nothing is reported for it
  reads: { kinds: [], apiSessions: true },

  refine(options, problems) {
    const range = parseVersionRange(options.versions);
    if (typeof range === 'string')
      problems.push({
        field: 'versions',
        reason: `is not a valid version range: ${range}`,
        value: options.versions,
      });
    else options.versions = range.source;
  },

  evaluate(check, data, ctx) {
    const versions = String(check.options.versions);
    const expectedValue = { versions };
    const session =
      data && Object.hasOwn(data.apiSessions, ctx.apiSessionId)
        ? data.apiSessions[ctx.apiSessionId]
        : undefined;
    if (!session) return noDataYet(agentVersion, expectedValue);
    const reported = session.sdkInfo?.version;
    const text = typeof reported === 'string' ? reported.trim() : '';
    const actualValue = { version: text || null };
    const version = text === '' ? 'no version' : parseReportedVersion(text, null);
    if (typeof version === 'string')
      return failing(
        actualValue,
        expectedValue,
        `the agent signed in with ${text ? `version "${text}", not a version number` : 'no version'}`,
        {
          code: 'AGENT_VERSION_UNKNOWN',
          agentVersion: text,
          versions,
        },
      );
    // A stored range that no longer parses matches nothing (fail closed).
    const range = cachedRange(versions);
    if (typeof range !== 'string' && matchRanges([range], version) === null)
      return passing(actualValue, expectedValue);
    return failing(actualValue, expectedValue, `agent version ${text} is not within ${versions}`, {
      code: 'AGENT_VERSION_OUT_OF_RANGE',
      agentVersion: text,
      versions,
    });
  },
});
