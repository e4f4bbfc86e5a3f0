/**
 * Intercept mode's throughput, in network namespaces (test/helpers/netns-world.ts, Linux and root only; the
 * bench is skipped with the reason elsewhere): everything intercept mode changes (routes, nftables, the
 * resolver) happens inside the world's client namespace, which the world deletes whatever happens, with its
 * own resolv.conf; the machine's own namespace is never touched.
 *
 * - `intercept.throughput.vs-proxy`: a program in the client namespace echoing through `echo.bench:5432` (the
 *   agent's resolver answers a pool address, the kernel redirects the connect to the agent's front door,
 *   the agent tunnels to the router) against the same program through a proxy-mode agent's loopback
 *   listener for the same service. Both agents run side by side as the same identity (the proxy one from a
 *   copy of the enrolled config folder), through the same controller, embedded router and echo service.
 * - `intercept.redirect.vs-loopback`: the redirect's own cost with no tunnel: a relay that reads
 *   SO_ORIGINAL_DST for each connection as the front door does (bench/lib/redirect-relay.ts), in front of a
 *   TCP echo, reached through an nftables `redirect` from an address routed to a TUN device no one reads
 *   (as `postern0` is), against the same relay reached directly on 127.0.0.1.
 *
 * One client process (bench/lib/echo-client.ts) measures the four paths in interleaved rounds; each figure
 * is the median of its rounds.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ECHO_PORT,
  SVC_ADDRESS,
  netnsUnavailable,
  startNetnsWorld,
  type NetnsWorld,
} from '../test/helpers/netns-world.js';
import { watchAgent, type AgentProcess } from '../test/helpers/reliability-agent-process.js';
import { spawnListening, type Child } from './lib/children.js';
import { figure, median, type Figure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { BenchSkipped } from './lib/skipped.js';
import { LINK_MTU } from '../src/agent/intercept/system/linux-routes.js';

const ROOT = join(import.meta.dirname, '..');
const AGENT_CLI = join(ROOT, 'src', 'agent', 'cli.ts');
const ECHO_NAME = 'echo.bench';
/** RFC 2544's benchmarking range: routed to the bench's own TUN device, far from the agent's 100.64.0.0/10 */
const REDIRECTED = {
  address: '198.18.0.1',
  /** the device's own address, as postern0 has the resolver's */
  local: '198.18.0.2',
  port: 7000,
  device: 'pbench0',
  table: 'postern_bench',
};

export async function interceptThroughputFigures(options: BenchOptions): Promise<Figure[]> {
  const unavailable = netnsUnavailable();
  if (unavailable) throw new BenchSkipped(unavailable);
  const world = await startNetnsWorld();
  const children: Child[] = [];
  const agents: AgentProcess[] = [];
  const proxyDir = mkdtempSync(join(tmpdir(), 'postern-bench-proxy-agent-'));
  try {
    const inClient = ['ip', 'netns', 'exec', world.names.client];
    const echo = await spawnListening(join(import.meta.dirname, 'lib', 'echo-server.ts'), [], inClient);
    children.push(echo);
    const relay = await spawnListening(
      join(import.meta.dirname, 'lib', 'redirect-relay.ts'),
      [new URL(echo.url).port],
      inClient,
    );
    children.push(relay);
    const relayPort = Number(new URL(relay.url).port);
    await redirectToRelay(world, relayPort);

    await world.publishService(
      'echo',
      { protocols: ['tcp'], addresses: [ECHO_NAME], portRanges: [{ low: ECHO_PORT, high: ECHO_PORT }] },
      { protocol: 'tcp', address: SVC_ADDRESS, port: ECHO_PORT },
    );
    // The proxy-mode agent: the same identity, from a copy of its config folder (each agent keeps its own state).
    cpSync(world.agentDir, proxyDir, { recursive: true });
    const intercepting = world.startAgent(['--intercept']);
    agents.push(intercepting);
    const proxying = watchAgent(
      world.spawnInClient(process.execPath, [
        '--import',
        'tsx',
        AGENT_CLI,
        '--credential-store',
        'file',
        '--config-dir',
        proxyDir,
        'run',
        '--socks-port',
        '0',
      ]),
    );
    agents.push(proxying);
    await intercepting.waitFor(
      new RegExp(`intercept echo: ${ECHO_NAME.replace('.', '\\.')}:${ECHO_PORT}`),
      120_000,
    );
    const listening = await proxying.waitFor(/tunnel echo: listening on 127\.0\.0\.1:\d+/, 120_000);
    const proxyPort = /tunnel echo: listening on 127\.0\.0\.1:(\d+)/.exec(listening)![1]!;

    const mib = options.quick ? 32 : 256;
    const rounds = options.quick ? 1 : 7;
    const run = await world.runInClient(
      process.execPath,
      [
        '--import',
        'tsx',
        join(import.meta.dirname, 'lib', 'echo-client.ts'),
        String(mib),
        String(rounds),
        `intercept=${ECHO_NAME}:${ECHO_PORT}`,
        `proxy=127.0.0.1:${proxyPort}`,
        `redirected=${REDIRECTED.address}:${REDIRECTED.port}`,
        `loopback=127.0.0.1:${relayPort}`,
      ],
      3_600_000,
    );
    if (run.code !== 0) throw new Error(`the client failed (${run.code}):\n${run.stdout}${run.stderr}`);
    const samples = JSON.parse(run.stdout.trim().split('\n').pop()!) as Record<
      'intercept' | 'proxy' | 'redirected' | 'loopback',
      number[]
    >;
    return figures(samples, mib, rounds);
  } finally {
    await Promise.all(agents.map((agent) => agent.stop()));
    await Promise.all(children.map((child) => child.stop()));
    await world.stop();
    rmSync(proxyDir, { recursive: true, force: true });
  }
}

/**
 * In the client namespace: `REDIRECTED.address` routed to a TUN device no process reads, set up as intercept
 * mode's `postern0` is (same MTU, a /32 of its own: a connect finds a route and takes its MSS from it), and
 * an nftables table redirecting it to the relay's port. Both go with the namespace.
 */
async function redirectToRelay(world: NetnsWorld, relayPort: number): Promise<void> {
  const { address, port, device, table } = REDIRECTED;
  const steps: string[][] = [
    ['ip', 'tuntap', 'add', 'dev', device, 'mode', 'tun'],
    ['ip', 'link', 'set', device, 'mtu', String(LINK_MTU), 'up'],
    ['ip', 'address', 'add', `${REDIRECTED.local}/32`, 'dev', device],
    ['ip', 'route', 'add', `${address}/32`, 'dev', device],
    ['nft', 'add', 'table', 'ip', table],
    ['nft', 'add', 'chain', 'ip', table, 'output', '{ type nat hook output priority -100 ; }'],
    [
      'nft',
      'add',
      'rule',
      'ip',
      table,
      'output',
      'ip',
      'daddr',
      address,
      'tcp',
      'dport',
      String(port),
    ].concat(['redirect', 'to', `:${relayPort}`]),
  ];
  for (const [command, ...args] of steps) {
    const result = await world.runInClient(command!, args);
    if (result.code !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr.trim()}`);
  }
}

function figures(
  samples: Record<'intercept' | 'proxy' | 'redirected' | 'loopback', number[]>,
  mib: number,
  rounds: number,
): Figure[] {
  const list = (values: number[]) => values.map((v) => v.toFixed(0)).join(', ');
  const rounding = `${mib} MiB echoed per round, median of ${rounds} interleaved rounds (4 paths)`;
  return [
    figure({
      name: 'intercept.throughput.vs-proxy',
      label: 'intercept mode echo throughput vs proxy mode',
      value: median(samples.intercept),
      unit: 'MiB/s',
      baseline: median(samples.proxy),
      baselineLabel:
        "proxy mode: the same client through a proxy-mode agent's loopback listener, same router and echo",
      target: { ratioMin: 0.9 },
      note:
        `${rounding}; intercept ${list(samples.intercept)} MiB/s, proxy ${list(samples.proxy)} MiB/s; ` +
        `client in a network namespace → ${ECHO_NAME}:${ECHO_PORT} (agent resolver → pool address → nftables ` +
        'redirect → agent → HTTP/2 over TLS → router → echo) vs the same through 127.0.0.1 to a proxy-mode agent',
    }),
    figure({
      name: 'intercept.redirect.vs-loopback',
      label: 'kernel redirect vs direct loopback, no tunnel',
      value: median(samples.redirected),
      unit: 'MiB/s',
      baseline: median(samples.loopback),
      baselineLabel: 'the same relay (SO_ORIGINAL_DST read per connection) and echo, reached on 127.0.0.1',
      target: null,
      note:
        `${rounding}; redirected ${list(samples.redirected)} MiB/s, direct ${list(samples.loopback)} MiB/s; ` +
        `client → ${REDIRECTED.address}:${REDIRECTED.port} (routed to a TUN device, nftables redirect) → relay → echo`,
    }),
  ];
}
