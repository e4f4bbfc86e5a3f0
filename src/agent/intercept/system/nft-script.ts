/**
 * The nftables script for a plan, for `nft -f -` (pure). One script is one transaction: it creates the table
 * if missing, deletes it, and writes it anew, so applying it again after the services change swaps every rule
 * at once, and a program never sees half a rule set.
 *
 * `output` (nat, before routing's second look) sends the intercepted TCP connections to the agent's intercept
 * listener on loopback; the bypass addresses go first so the agent's own connections to the controller and
 * routers are never redirected. `refuse` (filter, after nat) answers everything else that would leave through
 * `postern0` (a port that is not intercepted, UDP) with a reset or an error at once: no process reads the
 * device, so without it such a connection would hang until it timed out.
 */
import { LINK_NAME, NFT_TABLE, type PortRange, type SystemPlan } from './intercept-plan.js';

const portText = (r: PortRange) => (r.low === r.high ? String(r.low) : `${r.low}-${r.high}`);

/** nft prints a one-element set without braces; a set literal with one element is still valid input. */
const setLiteral = (items: readonly string[]) => `{ ${items.join(', ')} }`;

/**
 * nft caps a comment at 128 bytes and ends it at a quote; service names are the administrator's words, so
 * quotes, backslashes and control characters go and the text is cut (on a character boundary) to fit.
 */
export function nftCommentText(text: string): string {
  let clean = text.replace(/["\\\p{Cc}]/gu, '');
  while (Buffer.byteLength(clean) > 120) clean = [...clean].slice(0, -1).join('');
  return clean;
}

function bypassSet(name: string, type: string, elements: readonly string[]): string[] {
  return [
    `  set ${name} {`,
    `    type ${type}`,
    '    flags interval',
    ...(elements.length > 0 ? [`    elements = ${setLiteral(elements)}`] : []),
    '  }',
  ];
}

export function nftScript(plan: SystemPlan, listenPort: number): string {
  if (!Number.isInteger(listenPort) || listenPort < 1 || listenPort > 65535)
    throw new Error(`intercept listener port ${listenPort} is not within 1-65535`);
  const v4 = plan.bypass.filter((a) => !a.includes(':'));
  const v6 = plan.bypass.filter((a) => a.includes(':'));
  const redirects = plan.redirects.map((r) => {
    const ip = r.family === 4 ? 'ip' : 'ip6';
    const comment = `comment "${nftCommentText(r.services.join(', '))}"`;
    return `    ${ip} daddr ${setLiteral(r.destinations)} tcp dport ${setLiteral(r.ports.map(portText))} redirect to :${listenPort} ${comment}`;
  });
  return [
    `table inet ${NFT_TABLE} {}`,
    `delete table inet ${NFT_TABLE}`,
    `table inet ${NFT_TABLE} {`,
    ...bypassSet('bypass4', 'ipv4_addr', v4),
    ...bypassSet('bypass6', 'ipv6_addr', v6),
    '  chain output {',
    '    type nat hook output priority -100; policy accept;',
    '    ip daddr @bypass4 return',
    '    ip6 daddr @bypass6 return',
    ...redirects,
    '  }',
    '  chain refuse {',
    '    type filter hook output priority 0; policy accept;',
    // A redirected packet still names postern0 as its way out in this hook (the reroute to loopback happens
    // after the hooks ran); its connection is the one marked as rewritten.
    `    oifname "${LINK_NAME}" ct status dnat accept`,
    `    oifname "${LINK_NAME}" meta l4proto tcp reject with tcp reset`,
    `    oifname "${LINK_NAME}" reject with icmpx admin-prohibited`,
    '  }',
    '}',
    '',
  ].join('\n');
}

/** Removing every rule: the table goes, its sets and chains with it. Fails when there is no table (nft's words). */
export const NFT_DELETE_SCRIPT = `delete table inet ${NFT_TABLE}\n`;
