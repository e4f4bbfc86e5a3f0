/**
 * Linux: the host firewall is on when something drops what arrives unasked: firewalld or ufw running (systemd
 * answers any user; ufw's own `status` needs root, its configuration file does not), or the rule sets
 * themselves: an nftables base chain on the input hook, or iptables' INPUT chain, that drops by default (its
 * policy, or a final unconditional drop/reject before any unconditional accept). Reading rule sets needs
 * CAP_NET_ADMIN: without it the answer is unknown with that reason, never on.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FirewallFact } from '../../../../api/posture-types/index.js';
import type { CommandResult, CommandRunner } from '../../command-runner.js';
import type { FactEnvironment } from '../fact-environment.js';
import { systemTool } from '../system-tool.js';

/** What one source says: protecting, not, or could not be read (and why). */
export type RulesetVerdict = { readable: true; drops: boolean } | { readable: false; why: string };

const INPUT_FAMILIES = new Set(['ip', 'ip6', 'inet']);
const NEEDS_ROOT =
  'reading the firewall rules needs root (the Postern service), and neither ufw nor firewalld is running';

type NftObject = Record<string, Record<string, unknown> | undefined>;

function verdictOf(expr: unknown): 'drop' | 'accept' | undefined {
  if (!Array.isArray(expr)) return undefined;
  let verdict: 'drop' | 'accept' | undefined;
  for (const statement of expr as Record<string, unknown>[]) {
    const kind = Object.keys(statement)[0];
    if (kind === 'counter' || kind === 'log' || kind === 'limit') continue;
    if (kind === 'drop' || kind === 'reject') verdict = 'drop';
    else if (kind === 'accept') verdict = 'accept';
    // a match, a jump or anything else: the rule is conditional or hands over; it decides nothing alone
    else return undefined;
  }
  return verdict;
}

/** `nft -j list ruleset`: whether some input hook base chain drops what no earlier rule accepted. */
export function nftablesDrops(json: string): boolean {
  const items = ((JSON.parse(json) as { nftables?: NftObject[] }).nftables ?? []) as NftObject[];
  const rules = new Map<string, unknown[]>();
  for (const item of items) {
    const rule = item.rule;
    if (!rule) continue;
    const key = `${String(rule.family)} ${String(rule.table)} ${String(rule.chain)}`;
    rules.set(key, [...(rules.get(key) ?? []), rule.expr]);
  }
  return items.some(({ chain }) => {
    if (!chain || chain.hook !== 'input' || !INPUT_FAMILIES.has(String(chain.family))) return false;
    const key = `${String(chain.family)} ${String(chain.table)} ${String(chain.name)}`;
    for (const expr of rules.get(key) ?? []) {
      const verdict = verdictOf(expr);
      if (verdict) return verdict === 'drop';
    }
    return chain.policy === 'drop';
  });
}

/** `iptables -S INPUT`: the same judgement on iptables' INPUT chain. */
export function iptablesDrops(rules: string): boolean {
  let policy = false;
  for (const line of rules.split('\n').map((l) => l.trim())) {
    if (line.startsWith('-P INPUT ')) policy = /^-P INPUT (DROP|REJECT)\b/.test(line);
    const unconditional = /^-A INPUT -j (ACCEPT|DROP|REJECT)\b/.exec(line);
    if (unconditional) return unconditional[1] !== 'ACCEPT';
  }
  return policy;
}

async function attempt(run: CommandRunner, file: string, args: string[]): Promise<CommandResult | undefined> {
  try {
    return await run(file, args);
  } catch {
    return undefined; // not installed: nothing of its kind to read
  }
}

export async function nftablesVerdict(run: CommandRunner): Promise<RulesetVerdict | undefined> {
  const result = await attempt(run, systemTool('nft'), ['-j', 'list', 'ruleset']);
  if (!result) return undefined;
  if (result.code !== 0) return { readable: false, why: result.stderr.trim().split('\n')[0] ?? '' };
  return { readable: true, drops: nftablesDrops(result.stdout) };
}

export async function iptablesVerdict(run: CommandRunner): Promise<RulesetVerdict | undefined> {
  const result = await attempt(run, systemTool('iptables'), ['-S', 'INPUT']);
  if (!result) return undefined;
  if (result.code !== 0) return { readable: false, why: result.stderr.trim().split('\n')[0] ?? '' };
  return { readable: true, drops: iptablesDrops(result.stdout) };
}

/** firewalld running, or ufw enabled in its configuration and its unit active. */
export async function firewallServiceActive(run: CommandRunner, etcRoot: string): Promise<boolean> {
  const result = await attempt(run, systemTool('systemctl'), ['is-active', 'firewalld', 'ufw']);
  const [firewalld, ufw] = (result?.stdout ?? '').split('\n').map((l) => l.trim());
  if (firewalld === 'active') return true;
  if (ufw !== 'active') return false;
  const conf = await readFile(join(etcRoot, 'ufw', 'ufw.conf'), 'utf8').catch(() => '');
  return /^\s*ENABLED\s*=\s*yes\s*$/im.test(conf);
}

export async function collectLinuxFirewall(env: FactEnvironment): Promise<FirewallFact> {
  // All three at once: each is a process start, and the cycle waits for the slowest, not the sum.
  const [service, ...rulesets] = await Promise.all([
    firewallServiceActive(env.run, env.etcRoot),
    nftablesVerdict(env.run),
    iptablesVerdict(env.run),
  ]);
  if (service) return { enabled: true };
  const verdicts = rulesets.filter((v): v is RulesetVerdict => v !== undefined);
  if (verdicts.some((v) => v.readable && v.drops)) return { enabled: true };
  const unreadable = verdicts.find((v): v is { readable: false; why: string } => !v.readable);
  if (unreadable) return { enabled: null, unknownReason: `${NEEDS_ROOT} (${unreadable.why.slice(0, 160)})` };
  return { enabled: false };
}
