/** The command lines the Linux system layer runs, against a recorded fake: what it adds, what it leaves alone. */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { syncPinnedRoutes } from '../../../src/agent/intercept/system/bypass-routes.js';
import {
  checkPrivileges,
  effectiveCapabilities,
} from '../../../src/agent/intercept/system/linux-privileges.js';
import { createLink, syncRoutes } from '../../../src/agent/intercept/system/linux-routes.js';
import { buildSystemPlan } from '../../../src/agent/intercept/system/intercept-plan.js';
import { applyInterceptSystem, restoreSystem } from '../../../src/agent/intercept/system/linux-system.js';
import { JOURNAL_FILE } from '../../../src/agent/intercept/system/system-journal.js';
import { fakeSystem } from './fake-system-command.js';

const folders: string[] = [];
afterEach(() => folders.splice(0).forEach((f) => rmSync(f, { recursive: true, force: true })));
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'postern-linux-'));
  folders.push(dir);
  return dir;
};

describe('postern0 and its routes', () => {
  it('creates the device only when missing, then brings it up at loopback MTU with the resolver address', async () => {
    const fresh = fakeSystem((line) => (line === 'ip link show dev postern0' ? { code: 1 } : undefined));
    await createLink(fresh.run);
    // The MTU: a redirected connection takes its MSS from postern0's route (1448 at TUN's default 1500).
    expect(fresh.lines).toEqual([
      'ip link show dev postern0',
      'ip tuntap add dev postern0 mode tun',
      'ip link set dev postern0 mtu 65535 up',
      'ip address replace 100.64.0.2/32 dev postern0',
    ]);
    const existing = fakeSystem();
    await createLink(existing.run);
    expect(existing.lines).not.toContain('ip tuntap add dev postern0 mode tun');
  });

  it('adds missing routes, deletes stale ones, and never takes over a prefix routed through another device', async () => {
    const { run, lines } = fakeSystem((line) => {
      if (line === 'ip -4 -o route show dev postern0')
        return { stdout: '10.9.0.0/16 scope link linkdown \n100.64.0.0/10 scope link linkdown \n' };
      if (line === 'ip -6 -o route show dev postern0') return { stdout: '' };
      if (line === 'ip -4 route show exact 192.168.1.0/24')
        return { stdout: '192.168.1.0/24 dev eth0 proto kernel scope link src 192.168.1.20\n' };
      if (line === 'ip -4 route show exact 100.64.0.0/10')
        return { stdout: '100.64.0.0/10 dev postern0 scope link\n' };
      return undefined;
    });
    const result = await syncRoutes(run, ['100.64.0.0/10', '192.168.1.0/24', '10.7.7.7/32', 'fd00:9::/64']);
    expect(result).toEqual({
      added: ['10.7.7.7/32', 'fd00:9::/64'],
      removed: ['10.9.0.0/16'],
      leftAlone: [
        {
          route: '192.168.1.0/24',
          existing: '192.168.1.0/24 dev eth0 proto kernel scope link src 192.168.1.20',
        },
      ],
    });
    expect(lines).toContain('ip -4 route del 10.9.0.0/16 dev postern0');
    expect(lines).toContain('ip -4 route replace 10.7.7.7/32 dev postern0');
    expect(lines).toContain('ip -6 route replace fd00:9::/64 dev postern0');
    expect(lines.filter((l) => l.includes('replace 192.168.1.0/24'))).toEqual([]);
  });

  it("pins a bypass address along the system's most specific other route, tagged proto 147", async () => {
    const { run, lines } = fakeSystem((line) => {
      if (line === 'ip -4 -o route show match 10.1.2.3')
        return {
          stdout:
            'default via 192.0.2.1 dev eth0 \n10.0.0.0/8 dev postern0 scope link \n10.1.0.0/16 via 10.0.0.1 dev eth1 proto static \n',
        };
      if (line === 'ip -6 -o route show match fd00:1::9')
        return { stdout: 'default via fd00::1 dev eth0 metric 1024 \n' };
      return undefined;
    });
    expect(await syncPinnedRoutes(run, ['10.1.2.3/32', 'fd00:1::9/128', '10.200.0.1/32'])).toEqual([
      '10.1.2.3',
      'fd00:1::9',
    ]);
    expect(lines).toContain('ip -4 route replace 10.1.2.3 via 10.0.0.1 dev eth1 proto 147');
    expect(lines).toContain('ip -6 route replace fd00:1::9 via fd00::1 dev eth0 proto 147');
  });
});

describe('restoreSystem', () => {
  it('on a clean system removes nothing, fails nothing and checks every well-known name', async () => {
    const stateDir = tempDir();
    const { run, lines } = fakeSystem((line) =>
      line.startsWith('nft list') || line.startsWith('ip link show')
        ? { code: 1, stderr: 'No such file' }
        : undefined,
    );
    expect(await restoreSystem({ stateDir, run })).toEqual({ removed: [], failed: [] });
    expect(lines).toEqual([
      'nft list table inet postern',
      'ip link show dev postern0',
      'ip -4 -o route show proto 147',
      'ip -6 -o route show proto 147',
    ]);
  });

  it('removes the table, the device and pinned routes without a journal', async () => {
    const stateDir = tempDir();
    const { run, lines } = fakeSystem((line) =>
      line === 'ip -4 -o route show proto 147'
        ? { stdout: '10.1.2.3 via 10.0.0.1 dev eth1 proto 147\n' }
        : undefined,
    );
    const report = await restoreSystem({ stateDir, run });
    expect(report).toEqual({
      removed: [
        'nft table inet postern',
        'link postern0 and its routes',
        '1 pinned route(s) to the controller/routers',
      ],
      failed: [],
    });
    expect(lines).toContain('nft -f -');
    expect(lines).toContain('ip link del dev postern0');
    expect(lines).toContain('ip -4 route flush proto 147');
  });

  it('treats commands that are not installed as nothing to remove', async () => {
    const stateDir = tempDir();
    const { run } = fakeSystem(() => 'missing');
    expect(await restoreSystem({ stateDir, run })).toEqual({ removed: [], failed: [] });
  });

  it('keeps the journal when a step fails, so the next start tries again, and says why', async () => {
    const stateDir = tempDir();
    writeFileSync(
      join(stateDir, JOURNAL_FILE),
      JSON.stringify({
        version: 1,
        link: 'postern0',
        routes: [],
        resolver: { backend: 'resolv.conf', resolvConf: '/nonexistent' },
      }),
    );
    const { run } = fakeSystem((line) =>
      line === 'ip link del dev postern0'
        ? { code: 2, stderr: 'RTNETLINK answers: Operation not permitted' }
        : undefined,
    );
    const report = await restoreSystem({ stateDir, run });
    expect(report.failed).toEqual([
      'link postern0 and its routes: ip link del dev postern0 failed (exit 2): RTNETLINK answers: Operation not permitted',
    ]);
    expect(existsSync(join(stateDir, JOURNAL_FILE))).toBe(true);
  });
});

describe('applyInterceptSystem', () => {
  it('writes the journal (0600) before the first change', async () => {
    const stateDir = join(tempDir(), 'state');
    const journal = join(stateDir, JOURNAL_FILE);
    const resolvConf = join(tempDir(), 'resolv.conf');
    writeFileSync(resolvConf, 'nameserver 10.9.9.9\n');
    const seen: string[] = [];
    const { run } = fakeSystem((line) => {
      if (!/ show | get |--version/.test(line))
        seen.push(`${line}: journal ${existsSync(journal) ? 'written' : 'MISSING'}`);
      return line === 'ip link show dev postern0' ? { code: 1 } : undefined;
    });
    const plan = buildSystemPlan({ services: [], bypass: [] });
    await applyInterceptSystem(plan, {
      stateDir,
      run,
      resolvConf,
      listenPort: 15001,
      backend: 'resolv.conf',
    });
    expect(seen[0]).toBe('ip tuntap add dev postern0 mode tun: journal written');
    expect(seen.every((s) => s.endsWith('journal written'))).toBe(true);
    expect(statSync(journal).mode & 0o777).toBe(0o600);
    expect(statSync(stateDir).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(journal, 'utf8'))).toMatchObject({
      version: 1,
      link: 'postern0',
      nftTable: 'inet postern',
      routes: ['100.64.0.0/10'],
      pinned: [],
      resolver: { backend: 'resolv.conf', resolvConf },
    });
  });
});

describe('checkPrivileges', () => {
  const status = (capEff: string) => {
    const path = join(tempDir(), 'status');
    writeFileSync(path, `Name:\tnode\nCapPrm:\t${capEff}\nCapEff:\t${capEff}\n`);
    return path;
  };
  const everything = '000001ffffffffff';
  const noNetAdmin = (BigInt(`0x${everything}`) & ~(1n << 12n)).toString(16).padStart(16, '0');

  it('reads CAP_NET_ADMIN from CapEff', () => {
    expect(effectiveCapabilities('CapEff:\t0000000000001000\n')).toBe(0x1000n);
    expect(effectiveCapabilities('Name: x\n')).toBeUndefined();
  });

  it('says why in words: no capability, no ip, no nft, no TUN driver', async () => {
    const ok = fakeSystem().run;
    const tun = join(tempDir(), 'tun');
    writeFileSync(tun, '');
    expect(
      await checkPrivileges({ run: ok, procStatus: status(everything), tunDevice: tun, uid: 0 }),
    ).toEqual({ ok: true });
    expect(
      await checkPrivileges({ run: ok, procStatus: status('0000000000000000'), tunDevice: tun, uid: 1000 }),
    ).toEqual({
      ok: false,
      reason: expect.stringContaining('intercept mode needs root (or CAP_NET_ADMIN)'),
    });
    expect(
      await checkPrivileges({ run: ok, procStatus: status(noNetAdmin), tunDevice: tun, uid: 0 }),
    ).toEqual({
      ok: false,
      reason: expect.stringContaining('CAP_NET_ADMIN, which this root process does not have'),
    });
    // An unprivileged user given the capability (setcap, ambient capabilities) is enough.
    expect(
      await checkPrivileges({ run: ok, procStatus: status('0000000000001000'), tunDevice: tun, uid: 1000 }),
    ).toEqual({ ok: true });
    const noIp = fakeSystem((line) => (line.startsWith('ip ') ? 'missing' : undefined)).run;
    expect(
      await checkPrivileges({ run: noIp, procStatus: status(everything), tunDevice: tun, uid: 0 }),
    ).toEqual({
      ok: false,
      reason: 'intercept mode needs the ip command, which is not installed (package iproute2)',
    });
    const noNft = fakeSystem((line) => (line.startsWith('nft ') ? 'missing' : undefined)).run;
    expect(
      await checkPrivileges({ run: noNft, procStatus: status(everything), tunDevice: tun, uid: 0 }),
    ).toEqual({
      ok: false,
      reason: 'intercept mode needs the nft command, which is not installed (package nftables)',
    });
    expect(
      await checkPrivileges({
        run: ok,
        procStatus: status(everything),
        tunDevice: join(tempDir(), 'no-tun'),
        uid: 0,
      }),
    ).toEqual({
      ok: false,
      reason: expect.stringContaining('which is missing (load the tun module: modprobe tun)'),
    });
  });
});
