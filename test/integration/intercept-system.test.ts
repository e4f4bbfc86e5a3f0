/**
 * Intercept mode's Linux system layer for real, inside a throwaway network namespace: the device, routes, nft
 * table and resolv.conf it sets up, connections actually redirected (or refused at once), and everything gone
 * afterwards (resolv.conf byte for byte), including after the applying process is killed with SIGKILL and
 * when the journal is lost too. Skipped, with the reason, where namespaces are unavailable (not root).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { TransportProtocol } from '../../src/api/data-plane.js';
import { buildSystemPlan } from '../../src/agent/intercept/system/intercept-plan.js';
import { nftScript } from '../../src/agent/intercept/system/nft-script.js';
import { runSystemCommand } from '../../src/agent/intercept/system/system-command.js';
import {
  type NetworkNamespace,
  createNamespace,
  namespaceUnavailable,
} from '../helpers/network-namespace.js';

const SCRIPT = join(import.meta.dirname, '..', 'helpers', 'intercept-system-script.ts');
const PORT = 15001;
// A comment, two servers, search and options, no final newline: all of it must come back exactly.
const ORIGINAL = Buffer.from(
  '# managed by the test\nnameserver 10.9.9.9\nnameserver fd00::53\nsearch example.org\noptions ndots:2 timeout:1',
);

const tcp = (name: string, addresses: string[], ports: [number, number][]) => ({
  name,
  intercept: { protocols: ['tcp'], addresses, portRanges: ports.map(([low, high]) => ({ low, high })) },
});
// Port 53 too: the pool-wide redirect for names must not capture the resolver's own TCP.
const WIKI = tcp(
  'wiki',
  ['*.corp', 'wiki.example'],
  [
    [53, 53],
    [443, 443],
  ],
);
const DB = tcp(
  'db',
  ['172.20.0.0/16', 'fd00:9::/64'],
  [
    [5432, 5432],
    [5500, 5510],
  ],
);
const LAN = tcp('lan', ['10.0.0.0/8'], [[8080, 8080]]);
// 10.1.0.9 (a router) sits inside the intercepted 10.0.0.0/8: it must keep its own way out.
const INPUT = { services: [WIKI, DB, LAN], bypass: ['10.1.0.9', '2001:db8::7'] };

const unavailable = namespaceUnavailable();

/** Runs the script inside the namespace to the end; its one JSON line. */
function runScript(ns: NetworkNamespace, args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = ns.spawnScript(SCRIPT, args);
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`${args[0]} exited with ${code}: ${err}${out}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown>);
    });
  });
}

/** Starts `apply --hold` and resolves once it has applied, with the still-running child. */
function applyAndHold(ns: NetworkNamespace, stateDir: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = ns.spawnScript(SCRIPT, ['apply', stateDir, String(PORT), JSON.stringify(INPUT), '--hold']);
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('{"applied"')) resolve(child);
    });
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => reject(new Error(`apply exited with ${code} before applying: ${out}`)));
  });
}

async function text(ns: NetworkNamespace, file: string, args: string[]): Promise<string> {
  const result = await ns.exec(file, args);
  return `${result.stdout}${result.stderr}`;
}

/** Everything of Postern's that is still in the namespace, in words; empty when nothing is. */
async function leftovers(ns: NetworkNamespace): Promise<string[]> {
  const found: string[] = [];
  if ((await ns.exec('ip', ['link', 'show', 'dev', 'postern0'])).code === 0) found.push('link postern0');
  if ((await text(ns, 'nft', ['list', 'tables'])).includes('postern')) found.push('nft table');
  const routes = `${await text(ns, 'ip', ['-4', 'route', 'show', 'table', 'all'])}${await text(ns, 'ip', ['-6', 'route', 'show', 'table', 'all'])}`;
  for (const line of routes.split('\n'))
    if (/postern0|proto 147|100\.64\./.test(line)) found.push(`route ${line.trim()}`);
  if ((await text(ns, 'ip', ['address', 'show'])).includes('100.64.0.2')) found.push('address 100.64.0.2');
  if (!readFileSync(ns.resolvConf).equals(ORIGINAL))
    found.push(`resolv.conf: ${readFileSync(ns.resolvConf, 'utf8')}`);
  return found;
}

describe.skipIf(unavailable !== '')(
  `intercept mode's system layer in a network namespace${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    const cleanups: (() => void)[] = [];
    afterEach(() =>
      cleanups
        .splice(0)
        .reverse()
        .forEach((c) => c()),
    );

    async function world(): Promise<{ ns: NetworkNamespace; stateDir: string }> {
      const ns = await createNamespace(ORIGINAL);
      cleanups.push(() => ns.remove());
      const stateDir = mkdtempSync(join(tmpdir(), 'postern-intercept-state-'));
      cleanups.push(() => rmSync(stateDir, { recursive: true, force: true }));
      // A LAN of the namespace's own, with the default route the pinned router route copies.
      for (const args of [
        ['tuntap', 'add', 'dev', 'lan0', 'mode', 'tun'],
        ['link', 'set', 'dev', 'lan0', 'up'],
        ['address', 'add', '192.168.7.2/24', 'dev', 'lan0'],
        ['route', 'add', 'default', 'via', '192.168.7.1', 'dev', 'lan0', 'onlink'],
      ]) {
        const result = await ns.exec('ip', args);
        if (result.code !== 0) throw new Error(`ip ${args.join(' ')}: ${result.stderr}`);
      }
      return { ns, stateDir };
    }

    it('applies a plan, redirects intercepted TCP to the listener, refuses the rest at once, re-applies, and restores byte for byte', async () => {
      const { ns, stateDir } = await world();
      const { applied } = (await runScript(ns, ['apply', stateDir, String(PORT), JSON.stringify(INPUT)])) as {
        applied: { pinned: string[]; resolver: { backend: string; upstreams: string[] } };
      };
      expect(applied.resolver).toEqual({ backend: 'resolv.conf', upstreams: ['10.9.9.9', 'fd00::53'] });
      // 10.9.9.9, the namespace's DNS server, is inside 10.0.0.0/8 too: the resolver's forwarding must get out.
      expect(applied.pinned).toEqual(['10.1.0.9', '10.9.9.9']);

      expect(await text(ns, 'ip', ['-o', 'link', 'show', 'dev', 'postern0'])).toMatch(
        /postern0: <[^>]*\bUP\b/,
      );
      expect(await text(ns, 'ip', ['-o', '-4', 'address', 'show', 'dev', 'postern0'])).toContain(
        'inet 100.64.0.2/32',
      );
      const routes4 = await text(ns, 'ip', ['-4', 'route', 'show', 'dev', 'postern0']);
      for (const route of ['10.0.0.0/8', '100.64.0.0/10', '172.20.0.0/16']) expect(routes4).toContain(route);
      expect(await text(ns, 'ip', ['-6', 'route', 'show', 'dev', 'postern0'])).toContain('fd00:9::/64');
      expect(await text(ns, 'ip', ['route', 'get', '10.1.0.9'])).toContain('via 192.168.7.1 dev lan0');
      expect(await text(ns, 'ip', ['route', 'get', '10.9.9.9'])).toContain('via 192.168.7.1 dev lan0');
      expect(await text(ns, 'ip', ['route', 'get', '10.1.0.10'])).toContain('dev postern0');

      const table = await text(ns, 'nft', ['list', 'table', 'inet', 'postern']);
      expect(table).toContain('type nat hook output priority');
      expect(table).toMatch(/elements = \{ 10\.1\.0\.9, 10\.9\.9\.9,\s+100\.64\.0\.2 \}/);
      expect(table).toContain(
        'ip daddr 100.64.0.0/10 tcp dport { 53, 443 } redirect to :15001 comment "wiki"',
      );
      expect(table).toContain(
        'ip daddr 172.20.0.0/16 tcp dport { 5432, 5500-5510 } redirect to :15001 comment "db"',
      );
      expect(table).toContain(
        'ip6 daddr fd00:9::/64 tcp dport { 5432, 5500-5510 } redirect to :15001 comment "db"',
      );
      expect(table).toContain('ip daddr 10.0.0.0/8 tcp dport 8080 redirect to :15001 comment "lan"');

      const written = readFileSync(ns.resolvConf, 'utf8');
      expect(written).toMatch(/^# Written by Postern intercept mode/);
      expect(written).toContain('\nnameserver 100.64.0.2\nsearch example.org\noptions ndots:2 timeout:1\n');
      expect(written).not.toContain('10.9.9.9');
      expect(statSync(join(stateDir, 'intercept-journal.json')).mode & 0o777).toBe(0o600);

      const { probe } = await runScript(ns, [
        'probe',
        String(PORT),
        '172.20.0.5:5432',
        '[fd00:9::5]:5505',
        '100.64.0.7:443',
        '10.3.3.3:8080',
        '172.20.0.5:22',
        '[fd00:9::5]:22',
      ]);
      expect(probe).toEqual({
        '172.20.0.5:5432': 'accepted',
        '[fd00:9::5]:5505': 'accepted',
        '100.64.0.7:443': 'accepted',
        '10.3.3.3:8080': 'accepted',
        // Not intercepted but routed to postern0: a reset at once, not a hang.
        '172.20.0.5:22': 'ECONNREFUSED',
        '[fd00:9::5]:22': 'ECONNREFUSED',
      });

      // The resolver's address stays reachable on UDP and TCP 53, though a service intercepts the pool on 53.
      expect((await runScript(ns, ['resolver', '100.64.0.2'])).resolver).toEqual({
        udp: 'udp reached',
        tcp: 'tcp reached 100.64.0.2:53',
      });

      // The services change: db is no longer granted. One more apply swaps routes and rules.
      await runScript(ns, [
        'apply',
        stateDir,
        String(PORT),
        JSON.stringify({ ...INPUT, services: [WIKI, LAN] }),
      ]);
      expect(await text(ns, 'ip', ['-4', 'route', 'show', 'dev', 'postern0'])).not.toContain('172.20.0.0/16');
      expect(await text(ns, 'ip', ['-6', 'route', 'show', 'dev', 'postern0'])).not.toContain('fd00:9::/64');
      const swapped = await text(ns, 'nft', ['list', 'table', 'inet', 'postern']);
      expect(swapped).not.toContain('5432');
      expect(swapped).toContain('comment "wiki"');

      const { restored } = await runScript(ns, ['restore', stateDir]);
      expect(restored).toEqual({
        removed: [
          '/etc/resolv.conf restored',
          'nft table inet postern',
          'link postern0 and its routes',
          '2 pinned route(s) to the controller/routers',
        ],
        failed: [],
      });
      expect(await leftovers(ns)).toEqual([]);
      expect(existsSync(join(stateDir, 'intercept-journal.json'))).toBe(false);
      // The namespace's own network is as it was.
      expect(await text(ns, 'ip', ['route', 'show', 'default'])).toContain(
        'default via 192.168.7.1 dev lan0',
      );
      // A second restore finds nothing and fails nothing.
      expect((await runScript(ns, ['restore', stateDir])).restored).toEqual({ removed: [], failed: [] });
    });

    it('after the applying process is killed with SIGKILL, a new process restores everything', async () => {
      const { ns, stateDir } = await world();
      const child = await applyAndHold(ns, stateDir);
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      expect(await leftovers(ns)).not.toEqual([]);
      const { restored } = (await runScript(ns, ['restore', stateDir])) as { restored: { failed: string[] } };
      expect(restored.failed).toEqual([]);
      expect(await leftovers(ns)).toEqual([]);
    });

    it('with the journal lost as well, restore still removes the well-known names and puts resolv.conf back from the saved copy', async () => {
      const { ns, stateDir } = await world();
      const child = await applyAndHold(ns, stateDir);
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      rmSync(join(stateDir, 'intercept-journal.json'));
      const { restored } = (await runScript(ns, ['restore', stateDir])) as {
        restored: { removed: string[]; failed: string[] };
      };
      expect(restored.failed).toEqual([]);
      expect(restored.removed).toContain('/etc/resolv.conf restored');
      expect(await leftovers(ns)).toEqual([]);
    });

    it('generates a script nft accepts for any mix of prefixes, names and overlapping port ranges', async () => {
      const ns = await createNamespace(ORIGINAL);
      cleanups.push(() => ns.remove());
      const v4 = fc
        .tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 32 }))
        .map(([n, bits]) => `${[24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.')}/${bits}`);
      const v6 = fc
        .tuple(
          fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }),
          fc.integer({ min: 0, max: 128 }),
        )
        .map(([h, bits]) => `${h.map((x) => x.toString(16)).join(':')}/${bits}`);
      const name = fc.constantFrom('*.corp', 'wiki.example', 'git.corp', '*.a.b.example');
      const range = fc
        .tuple(fc.integer({ min: 1, max: 65535 }), fc.integer({ min: 0, max: 2000 }))
        .map(([low, span]) => ({ low, high: Math.min(65535, low + span) }));
      const service = fc.record({
        name: fc.string({ maxLength: 40 }),
        intercept: fc.record({
          protocols: fc.constant<TransportProtocol[]>(['tcp']),
          addresses: fc.array(fc.oneof(v4, v6, name), { minLength: 1, maxLength: 6 }),
          portRanges: fc.array(range, { minLength: 1, maxLength: 5 }),
        }),
      });
      // Single addresses and prefixes, overlapping ones included: a named nft set refuses overlaps.
      const bypassed = fc.oneof(
        v4.map((c) => c.split('/')[0]!),
        v6.map((c) => c.split('/')[0]!),
        v4,
        fc.constantFrom('10.1.0.9', '10.0.0.0/8', '10.1.0.0/16', '100.64.0.2', 'fd00::/8', 'fd00::9'),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.array(service, { maxLength: 6 }),
          fc.array(bypassed, { maxLength: 5 }),
          async (services, bypass) => {
            const script = nftScript(buildSystemPlan({ services, bypass }), PORT);
            // -c: checked by nft's own parser and the kernel's validation, nothing applied.
            const checked = await runSystemCommand(
              'ip',
              ['netns', 'exec', ns.name, 'nft', '-c', '-f', '-'],
              script,
            );
            expect(checked.stderr, script).toBe('');
            expect(checked.code).toBe(0);
          },
        ),
        { numRuns: 40 },
      );
    });
  },
);
