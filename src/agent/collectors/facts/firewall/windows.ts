/**
 * Windows: every profile of Windows Defender Firewall enabled in the active store (what applies after Group
 * Policy), which any user may read. A machine with one profile off is exposed whenever it joins a network of
 * that kind, so it does not count as protected.
 */
import type { FirewallFact } from '../../../../api/posture-types/index.js';
import type { FactEnvironment } from '../fact-environment.js';
import { powershellArgs } from '../../windows-scripts.js';
import { parsePowershellJson, powershellFailure } from '../powershell-json.js';

export const FIREWALL_SCRIPT =
  '$p = @(Get-NetFirewallProfile -PolicyStore ActiveStore | ForEach-Object { @{ name = [string]$_.Name; enabled = [string]$_.Enabled } }); ' +
  'ConvertTo-Json -InputObject @{ profiles = $p } -Depth 3 -Compress';

export function parseFirewallProfiles(stdout: string): FirewallFact {
  const data = parsePowershellJson(stdout, 'firewall profile');
  const profiles = (Array.isArray(data.profiles) ? data.profiles : [data.profiles]).filter(
    (p): p is Record<string, unknown> => typeof p === 'object' && p !== null,
  );
  if (profiles.length === 0) return { enabled: null, unknownReason: 'Windows listed no firewall profiles' };
  return { enabled: profiles.every((p) => p.enabled === 'True') };
}

export async function collectWindowsFirewall(env: FactEnvironment): Promise<FirewallFact> {
  const result = await env.run(env.powershell, powershellArgs(FIREWALL_SCRIPT));
  if (result.code !== 0) return { enabled: null, unknownReason: powershellFailure(result, 'firewall') };
  return parseFirewallProfiles(result.stdout);
}
