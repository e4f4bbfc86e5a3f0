/** The controller's command line: a session timeout so short it would sign agents out while in use is refused. */
import { describe, expect, it } from 'vitest';
import {
  MIN_SESSION_TIMEOUT_SECONDS,
  parseControllerArgs,
} from '../../../controller/composition/cli-args.js';

describe('--session-timeout', () => {
  it.each(['1', '4', String(MIN_SESSION_TIMEOUT_SECONDS - 1), '0', '2.5', 'soon'])(
    'refuses %s with the allowed range',
    (value) => {
      expect(() => parseControllerArgs(['--session-timeout', value])).toThrow(
        `--session-timeout must be a whole number from ${MIN_SESSION_TIMEOUT_SECONDS} to 2592000`,
      );
    },
  );

  it('accepts the minimum and more', () => {
    const config = parseControllerArgs(['--session-timeout', String(MIN_SESSION_TIMEOUT_SECONDS)]);
    expect(config !== 'help' && config.sessionTimeoutSeconds).toBe(MIN_SESSION_TIMEOUT_SECONDS);
    const longer = parseControllerArgs(['--session-timeout', '7200']);
    expect(longer !== 'help' && longer.sessionTimeoutSeconds).toBe(7200);
  });
});

describe('--trust-proxy', () => {
  it('is off unless given', () => {
    const plain = parseControllerArgs([]);
    const trusting = parseControllerArgs(['--trust-proxy']);
    expect(plain !== 'help' && plain.trustProxy).toBe(false);
    expect(trusting !== 'help' && trusting.trustProxy).toBe(true);
  });
});

describe('--https and --enrollment-ttl', () => {
  it('serves plain HTTP on loopback unless --https, and enrollment tokens last a day unless told', () => {
    const plain = parseControllerArgs([]);
    expect(plain !== 'help' && [plain.https, plain.enrollmentSeconds]).toEqual([false, 86_400]);
    const told = parseControllerArgs(['--https', '--enrollment-ttl', '3600']);
    expect(told !== 'help' && [told.https, told.enrollmentSeconds]).toEqual([true, 3600]);
  });

  it.each(['59', '31536001', 'a day'])('refuses --enrollment-ttl %s with the allowed range', (value) => {
    expect(() => parseControllerArgs(['--enrollment-ttl', value])).toThrow(
      '--enrollment-ttl must be a whole number from 60 to 31536000',
    );
  });
});

describe('--audit-retention-days', () => {
  it('keeps 90 days unless told, and refuses what is not a whole number of days from 1 to 3650', () => {
    const plain = parseControllerArgs([]);
    expect(plain !== 'help' && plain.auditRetentionDays).toBe(90);
    const told = parseControllerArgs(['--audit-retention-days', '30']);
    expect(told !== 'help' && told.auditRetentionDays).toBe(30);
    for (const value of ['0', '3651', '1.5', 'forever'])
      expect(() => parseControllerArgs(['--audit-retention-days', value])).toThrow(
        '--audit-retention-days must be a whole number from 1 to 3650',
      );
  });
});
