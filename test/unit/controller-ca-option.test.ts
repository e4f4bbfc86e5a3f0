/**
 * `--controller-ca FILE` is the one name for the controller's CA bundle on the router, the agent and the admin
 * CLI; each still accepts `--ca`, and both naming different files is a usage error.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAdminArgs, USAGE as ADMIN_USAGE } from '../../src/admin/admin-args.js';
import { parseCliArgs, UsageError, USAGE as AGENT_USAGE } from '../../src/agent/cli/cli-args.js';
import {
  parseRouterArgs,
  UsageError as RouterUsageError,
  USAGE as ROUTER_USAGE,
} from '../../edge-router/router-args.js';

const dir = mkdtempSync(join(tmpdir(), 'postern-ca-option-'));
const caFile = join(dir, 'ca.pem');
writeFileSync(caFile, 'PEM BUNDLE');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const router = (ca: string[]) =>
  parseRouterArgs(['--controller', 'https://c.example', '--data-dir', dir, ...ca]);

describe('--controller-ca and its alias --ca', () => {
  it.each([['--controller-ca'], ['--ca']])('the agent takes %s', (flag) => {
    expect(parseCliArgs([flag, caFile, 'status'], {}).ca).toBe(caFile);
  });

  it.each([['--controller-ca'], ['--ca']])('the admin CLI takes %s', (flag) => {
    expect(parseAdminArgs([flag, caFile, 'services', 'list'], {}).connection.ca).toBe(caFile);
  });

  it.each([['--controller-ca'], ['--ca']])('the router takes %s and reads the file', (flag) => {
    const args = router([flag, caFile]);
    expect(args !== 'help' && args.controllerCa).toBe('PEM BUNDLE');
  });

  it('both spellings naming the same file are one option; naming different files is refused', () => {
    expect(parseCliArgs(['--controller-ca', caFile, '--ca', caFile, 'status'], {}).ca).toBe(caFile);
    expect(() => parseCliArgs(['--controller-ca', caFile, '--ca', 'other.pem', 'status'], {})).toThrow(
      UsageError,
    );
    expect(() =>
      parseAdminArgs(['--controller-ca', caFile, '--ca', 'other.pem', 'services', 'list'], {}),
    ).toThrow(/--controller-ca and its alias --ca name different files/);
    expect(() => router(['--controller-ca', caFile, '--ca', 'other.pem'])).toThrow(RouterUsageError);
  });

  it('every usage text names --controller-ca', () => {
    for (const usage of [AGENT_USAGE, ADMIN_USAGE, ROUTER_USAGE])
      expect(usage).toContain('--controller-ca FILE');
  });
});

describe('--controller-fingerprint, one option on the router, the agent and the admin CLI', () => {
  const printed = 'AB:'.repeat(31) + 'AB';
  const hex = 'ab'.repeat(32);

  it('each takes the fingerprint as the controller printed it (colons, any case)', () => {
    expect(parseCliArgs(['--controller-fingerprint', printed, 'status'], {}).controllerFingerprint).toBe(hex);
    expect(
      parseAdminArgs(['--controller-fingerprint', printed, 'services', 'list'], {}).connection
        .controllerFingerprint,
    ).toBe(hex);
    const args = router(['--controller-fingerprint', printed]);
    expect(args !== 'help' && args.controllerFingerprint).toBe(hex);
  });

  it('refuses what is not a SHA-256 fingerprint, saying so, on each', () => {
    const words = /--controller-fingerprint must be a SHA-256 fingerprint \(64 hex digits\), got 'abc'/;
    expect(() => parseCliArgs(['--controller-fingerprint', 'abc', 'status'], {})).toThrow(words);
    expect(() => router(['--controller-fingerprint', 'abc'])).toThrow(RouterUsageError);
    expect(() => router(['--controller-fingerprint', 'abc'])).toThrow(words);
  });

  it('every usage text names it', () => {
    for (const usage of [AGENT_USAGE, ADMIN_USAGE, ROUTER_USAGE])
      expect(usage).toContain('--controller-fingerprint');
  });
});
