import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { POSTERN_MARKER, nameservers } from '../../../src/agent/intercept/system/resolv-conf.js';
import {
  type ResolverPaths,
  SAVED_RESOLV_CONF,
  chooseBackend,
  registerResolver,
  resolvedCommands,
  restoreResolvConf,
} from '../../../src/agent/intercept/system/resolver-registration.js';
import { fakeSystem } from './fake-system-command.js';

const folders: string[] = [];
afterEach(() => folders.splice(0).forEach((f) => rmSync(f, { recursive: true, force: true })));

function setup(resolvConf: string | Buffer): ResolverPaths {
  const dir = mkdtempSync(join(tmpdir(), 'postern-resolver-'));
  folders.push(dir);
  const paths = {
    resolvConf: join(dir, 'resolv.conf'),
    resolvedUpstreams: join(dir, 'upstreams'),
    stateDir: join(dir, 'state'),
  };
  writeFileSync(paths.resolvConf, resolvConf);
  writeFileSync(paths.resolvedUpstreams, 'nameserver 192.0.2.53\nnameserver 2001:db8::53\n');
  mkdirSync(paths.stateDir);
  return paths;
}

// No trailing newline, a comment, options and CRLF-free bytes that must come back exactly.
const ORIGINAL = Buffer.from(
  '# from DHCP\nnameserver 10.9.9.9\nnameserver fd00::53\nsearch example.org corp.example\noptions ndots:2 timeout:1',
);

describe('resolv.conf backend', () => {
  it('saves the original byte for byte, names the resolver only, keeps search and options, exposes the upstreams', async () => {
    const paths = setup(ORIGINAL);
    const { run, lines } = fakeSystem();
    const registration = await registerResolver(run, 'resolv.conf', paths, '100.64.0.2', ['corp']);
    expect(registration).toEqual({ backend: 'resolv.conf', upstreams: ['10.9.9.9', 'fd00::53'] });
    expect(lines).toEqual([]);
    const saved = join(paths.stateDir, SAVED_RESOLV_CONF);
    expect(readFileSync(saved).equals(ORIGINAL)).toBe(true);
    expect(statSync(saved).mode & 0o777).toBe(0o600);
    const written = readFileSync(paths.resolvConf, 'utf8');
    expect(written.startsWith(POSTERN_MARKER)).toBe(true);
    expect(written).toContain(`cp ${saved} ${paths.resolvConf}`);
    expect(nameservers(written)).toEqual(['100.64.0.2']);
    expect(written).toContain('\nsearch example.org corp.example\noptions ndots:2 timeout:1\n');
  });

  it("writes in place: the file keeps its inode (a bind mount or another program's symlink stays valid)", async () => {
    const paths = setup(ORIGINAL);
    const inode = statSync(paths.resolvConf).ino;
    await registerResolver(fakeSystem().run, 'resolv.conf', paths, '100.64.0.2', []);
    expect(statSync(paths.resolvConf).ino).toBe(inode);
  });

  it('on a re-apply keeps the first original and its upstreams', async () => {
    const paths = setup(ORIGINAL);
    await registerResolver(fakeSystem().run, 'resolv.conf', paths, '100.64.0.2', ['corp']);
    const again = await registerResolver(fakeSystem().run, 'resolv.conf', paths, '100.64.0.2', [
      'corp',
      'lan',
    ]);
    expect(again.upstreams).toEqual(['10.9.9.9', 'fd00::53']);
    expect(readFileSync(join(paths.stateDir, SAVED_RESOLV_CONF)).equals(ORIGINAL)).toBe(true);
  });

  it('refuses a file Postern wrote whose original is lost, saying how to fix it', async () => {
    const paths = setup(`${POSTERN_MARKER}\nnameserver 100.64.0.2\n`);
    await expect(registerResolver(fakeSystem().run, 'resolv.conf', paths, '100.64.0.2', [])).rejects.toThrow(
      /was written by Postern but its original is not in .*; put the system resolver back/,
    );
  });

  it('restores the saved bytes exactly and removes the copy', async () => {
    const paths = setup(ORIGINAL);
    await registerResolver(fakeSystem().run, 'resolv.conf', paths, '100.64.0.2', ['corp']);
    expect(await restoreResolvConf(paths)).toBe(`${paths.resolvConf} restored`);
    expect(readFileSync(paths.resolvConf).equals(ORIGINAL)).toBe(true);
    expect(() => statSync(join(paths.stateDir, SAVED_RESOLV_CONF))).toThrow();
    expect(await restoreResolvConf(paths)).toBeUndefined();
  });

  it('restores over an empty file: a write in place killed between truncating and writing', async () => {
    const paths = setup(ORIGINAL);
    await registerResolver(fakeSystem().run, 'resolv.conf', paths, '100.64.0.2', []);
    writeFileSync(paths.resolvConf, '');
    expect(await restoreResolvConf(paths)).toBe(`${paths.resolvConf} restored`);
    expect(readFileSync(paths.resolvConf).equals(ORIGINAL)).toBe(true);
  });

  it('leaves a file changed since Postern wrote it (a DHCP client rewrote it) and drops the stale copy', async () => {
    const paths = setup(ORIGINAL);
    await registerResolver(fakeSystem().run, 'resolv.conf', paths, '100.64.0.2', []);
    writeFileSync(paths.resolvConf, 'nameserver 10.7.7.7\n');
    expect(await restoreResolvConf(paths)).toContain('left as is (changed since Postern wrote it)');
    expect(readFileSync(paths.resolvConf, 'utf8')).toBe('nameserver 10.7.7.7\n');
    expect(() => statSync(join(paths.stateDir, SAVED_RESOLV_CONF))).toThrow();
  });
});

describe('systemd-resolved backend', () => {
  it('routes only the intercepted domains to the resolver on postern0', () => {
    expect(resolvedCommands('100.64.0.2', ['corp', 'wiki.example'])).toEqual([
      ['dns', 'postern0', '100.64.0.2'],
      ['domain', 'postern0', '~corp', '~wiki.example'],
      ['default-route', 'postern0', 'false'],
    ]);
    expect(resolvedCommands('100.64.0.2', [])).toEqual([['revert', 'postern0']]);
  });

  it("runs resolvectl, leaves resolv.conf alone and forwards to resolved's upstreams", async () => {
    const paths = setup('nameserver 127.0.0.53\noptions edns0 trust-ad\n');
    const { run, lines } = fakeSystem();
    const registration = await registerResolver(run, 'resolved', paths, '100.64.0.2', ['corp']);
    expect(registration).toEqual({ backend: 'resolved', upstreams: ['192.0.2.53', '2001:db8::53'] });
    expect(lines).toEqual([
      'resolvectl dns postern0 100.64.0.2',
      'resolvectl domain postern0 ~corp',
      'resolvectl default-route postern0 false',
    ]);
    expect(readFileSync(paths.resolvConf, 'utf8')).toBe('nameserver 127.0.0.53\noptions edns0 trust-ad\n');
  });
});

describe('chooseBackend', () => {
  it('picks resolved for its stub (symlink or 127.0.0.53) when resolvectl exists, resolv.conf otherwise', async () => {
    const withResolvectl = fakeSystem().run;
    const without = fakeSystem((line) => (line.startsWith('resolvectl') ? 'missing' : undefined)).run;
    const stubCopy = setup('nameserver 127.0.0.53\n');
    expect(await chooseBackend(withResolvectl, stubCopy.resolvConf)).toBe('resolved');
    expect(await chooseBackend(without, stubCopy.resolvConf)).toBe('resolv.conf');

    const plain = setup('nameserver 10.9.9.9\n');
    expect(await chooseBackend(withResolvectl, plain.resolvConf)).toBe('resolv.conf');

    const linked = setup('');
    const link = join(linked.stateDir, 'resolv.conf');
    symlinkSync('../run/systemd/resolve/stub-resolv.conf', link);
    expect(await chooseBackend(withResolvectl, link)).toBe('resolved');
    expect(await chooseBackend(withResolvectl, join(linked.stateDir, 'none'))).toBe('resolv.conf');
  });
});
