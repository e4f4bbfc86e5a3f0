/**
 * macOS: the application firewall's global state, which any user may read. `State = 1` is on, `State = 2`
 * is on and blocking every incoming connection, `State = 0` is off.
 */
import type { FirewallFact } from '../../../../api/posture-types/index.js';
import type { FactEnvironment } from '../fact-environment.js';

const SOCKETFILTERFW = '/usr/libexec/ApplicationFirewall/socketfilterfw';

export function parseSocketfilterfwState(stdout: string): FirewallFact {
  const text = stdout.trim();
  const state = /State = (\d)/.exec(text)?.[1];
  if (state !== undefined) return { enabled: state !== '0' };
  // Releases before 10.15 print the sentence only.
  if (/Firewall is (enabled|blocking)/i.test(text)) return { enabled: true };
  if (/Firewall is disabled/i.test(text)) return { enabled: false };
  return {
    enabled: null,
    unknownReason: `unexpected socketfilterfw output: ${text.slice(0, 120) || '(empty)'}`,
  };
}

export async function collectMacosFirewall(env: FactEnvironment): Promise<FirewallFact> {
  const result = await env.run(SOCKETFILTERFW, ['--getglobalstate']);
  if (result.code !== 0)
    return { enabled: null, unknownReason: `socketfilterfw failed: ${result.stderr.trim().slice(0, 200)}` };
  return parseSocketfilterfwState(result.stdout);
}
