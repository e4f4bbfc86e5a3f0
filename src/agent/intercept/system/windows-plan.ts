/**
 * What a privileged Windows service would run for a plan (pure; generated and unit-tested here, executed only
 * on Windows): a Wintun adapter named Postern that carries the resolver address and the intercepted routes,
 * and NRPT rules that send the intercepted domains, and only those, to the agent's resolver.
 *
 * Everything is made so that it cannot outlive the service by much: the address and routes go in the active
 * store (gone at reboot, and gone with the adapter, which the service deletes when it stops), and the NRPT
 * rules, which Windows keeps in the registry, carry a comment tag so the removal script finds them with no
 * state at all; the service runs it when it stops and again when it starts, so a crash is cleaned up by the
 * next start. Windows has no nat output hook: the packet path is the service reading the adapter (see
 * docs/DATA-PLANE.md, "Intercept mode").
 */
import type { SystemPlan } from './intercept-plan.js';

export const WINDOWS_ADAPTER = 'Postern';
/** The NRPT rules' comment: the removal finds Postern's rules by it, and only those. */
export const NRPT_TAG = 'Postern intercept';

export interface WindowsSystemPlan {
  /** created by the service through wintun.dll (WintunCreateAdapter(name, tunnelType, guid)) */
  adapter: { name: string; tunnelType: string };
  /** PowerShell, run in order once the adapter exists */
  apply: string[];
  /**
   * PowerShell that removes what is Postern's: the NRPT rules by their tag and the adapter's routes whatever
   * state is left; the pinned host routes by address (the service keeps the last plan in its journal)
   */
  remove: string[];
}

/** A PowerShell single-quoted string: nothing inside is expanded; a quote is doubled. */
export const psQuote = (text: string) => `'${text.replace(/'/g, "''")}'`;

export function windowsPlan(plan: SystemPlan): WindowsSystemPlan {
  const alias = psQuote(WINDOWS_ADAPTER);
  const resolver = psQuote(plan.resolver.address);
  const apply = [
    `New-NetIPAddress -InterfaceAlias ${alias} -IPAddress ${resolver} -PrefixLength 32 -PolicyStore ActiveStore`,
    ...plan.routes.map(
      (route) =>
        `New-NetRoute -DestinationPrefix ${psQuote(route)} -InterfaceAlias ${alias} -PolicyStore ActiveStore -RouteMetric 0`,
    ),
    // The controller's and routers' addresses inside an intercepted prefix keep the way they had before.
    ...plan.pinned.map((address) => {
      const host = psQuote(address.split('/')[0]!);
      return (
        `$way = Find-NetRoute -RemoteIPAddress ${host} | Where-Object { $_.DestinationPrefix } | Select-Object -First 1; ` +
        `New-NetRoute -DestinationPrefix ${psQuote(address)} -InterfaceIndex $way.InterfaceIndex -NextHop $way.NextHop -PolicyStore ActiveStore`
      );
    }),
    // '.corp' is every name under corp, 'corp' the name itself: together what resolved's '~corp' routes.
    ...plan.resolver.domains.map(
      (domain) =>
        `Add-DnsClientNrptRule -Namespace ${psQuote(`.${domain}`)}, ${psQuote(domain)} -NameServers ${resolver} -Comment ${psQuote(NRPT_TAG)}`,
    ),
    'Clear-DnsClientCache',
  ];
  const remove = [
    `Get-DnsClientNrptRule | Where-Object { $_.Comment -eq ${psQuote(NRPT_TAG)} } | ForEach-Object { Remove-DnsClientNrptRule -Name $_.Name -Force }`,
    `Get-NetRoute -InterfaceAlias ${alias} -ErrorAction SilentlyContinue | Remove-NetRoute -Confirm:$false`,
    ...plan.pinned.map(
      (address) =>
        `Remove-NetRoute -DestinationPrefix ${psQuote(address)} -PolicyStore ActiveStore -Confirm:$false -ErrorAction SilentlyContinue`,
    ),
    'Clear-DnsClientCache',
  ];
  return { adapter: { name: WINDOWS_ADAPTER, tunnelType: WINDOWS_ADAPTER }, apply, remove };
}
