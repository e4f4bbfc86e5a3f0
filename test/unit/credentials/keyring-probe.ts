/**
 * Run by test/integration/keyring.test.ts in a child process inside `dbus-run-session` with
 * gnome-keyring, because the Secret Service must belong to a throwaway D-Bus session and HOME that
 * the in-process vitest worker cannot switch to. It lives here, not in test/integration/, only
 * because that folder is shared; it is not a test file itself (vitest runs `*.test.ts` only).
 *
 * The secret arrives on stdin (never argv or env, which other processes can read) and is never
 * printed: the probe reports only whether each value matched.
 */
import { execFileSync } from 'node:child_process';
import { KeyringCredentialStore } from '../../../src/agent/credentials/keyring-credential-store.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** What the Secret Service itself holds, read with libsecret's CLI rather than through our code. */
function secretToolLookup(account: string): string | null {
  try {
    return execFileSync('secret-tool', ['lookup', 'service', 'postern', 'username', account], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const { secret, replacement } = JSON.parse(await readStdin()) as { secret: string; replacement: string };
  const account = 'probe-account';
  // Pinned to the Secret Service so a silent fallback to the kernel keyring cannot pass the test.
  const store = new KeyringCredentialStore({ linuxStore: 'secret-service' });
  const defaultStore = new KeyringCredentialStore();
  const report: Record<string, unknown> = {};

  report.initiallyAbsent = (await store.get(account)) === undefined;
  await store.set(account, secret);
  report.getMatches = (await store.get(account)) === secret;
  report.defaultStoreMatches = (await defaultStore.get(account)) === secret;
  report.secretServiceHolds = secretToolLookup(account) === secret;
  report.otherAccountAbsent = (await store.get('someone-else')) === undefined;
  await store.set(account, replacement);
  report.overwriteMatches = (await store.get(account)) === replacement;
  report.secretServiceHoldsReplacement = secretToolLookup(account) === replacement;
  report.deleted = await store.delete(account);
  report.deletedAgain = await store.delete(account);
  report.absentAfterDelete = (await store.get(account)) === undefined;
  report.secretServiceEmpty = secretToolLookup(account) === null;
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`probe failed: ${error instanceof Error ? error.message : 'unknown'}\n`);
  process.exit(1);
});
