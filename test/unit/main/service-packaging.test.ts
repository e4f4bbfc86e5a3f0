/**
 * The agent service's packaged definitions (systemd unit, launchd plist, WinSW service) cannot be installed
 * here; they are read as the init systems would and checked against the code: each runs the CLI's
 * `service` command with options it accepts, at the socket the clients look for, through the launcher
 * electron-builder ships at that path; the restore entry point is `service --restore-only`; the package
 * scripts create the group the service allows and install the unit where `status` looks for it.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBuilderConfig, ROOT } from '../../helpers/electron-builder-config.js';
import {
  isServiceCommandLine,
  parseServiceArgs,
} from '../../../src/agent/cli/commands/agent-service-command.js';
import { defaultServiceSocket } from '../../../src/agent/service/service-client.js';
import { INSTALLED_MARKERS } from '../../../src/agent/service/service-mode.js';

const config = await loadBuilderConfig();
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** A systemd unit's `[Section]` → key → value (the last one of a key). */
function parseUnit(text: string): Record<string, Record<string, string>> {
  const sections: Record<string, Record<string, string>> = {};
  let current: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (/^\s*(#|;|$)/.test(line)) continue;
    const section = /^\[(.+)\]$/.exec(line.trim());
    if (section) sections[section[1]!] = current = {};
    else {
      const at = line.indexOf('=');
      current[line.slice(0, at).trim()] = line.slice(at + 1).trim();
    }
  }
  return sections;
}

/** A command line split as a shell (or the service manager) splits it: spaces, double quotes. */
const words = (line: string) => [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);

/** What the service command makes of the arguments: it must be `service`, with options it accepts. */
function serviceArgs(argv: string[]) {
  expect(argv[0]).toBe('service');
  expect(isServiceCommandLine(argv)).toBe(true);
  return parseServiceArgs(argv, {});
}

const shipped = (resources: { from: string; to: string }[], to: string) => {
  const entry = resources.find((r) => r.to === to);
  expect(entry, `extraResources ships ${to}`).toBeDefined();
  expect(existsSync(join(ROOT, entry!.from)), `${entry!.from} exists`).toBe(true);
  return entry!;
};

describe('the systemd unit (packaging/linux/postern-agent.service)', () => {
  const unit = parseUnit(read('packaging/linux/postern-agent.service'));
  const service = unit.Service!;
  const appResources = `/opt/${config.productName}/resources`;

  it('runs the service command through the launcher the package ships, at the default socket', () => {
    expect(service.Type).toBe('simple');
    expect(service.Restart).toBe('on-failure');
    const [program, ...argv] = words(service.ExecStart!);
    shipped(config.linux.extraResources, 'agent/postern-agent');
    expect(program).toBe(`${appResources}/agent/postern-agent`);
    expect(statSync(join(ROOT, 'packaging/linux/postern-agent')).mode & 0o111).not.toBe(0);
    const args = serviceArgs(argv);
    expect(args.socket).toBe(defaultServiceSocket('linux'));
    expect(args.allowGroup).toBe('postern');
    expect(args.restoreOnly).toBe(false);
    expect(args.proxyOnly).toBe(false);
    // systemd makes the socket's folder and the state folder the options name.
    expect(dirname(args.socket)).toBe(`/run/${service.RuntimeDirectory}`);
    expect(args.cli.configDir).toBe(`/var/lib/${service.StateDirectory}`);
  });

  it('restores the system after every stop with service --restore-only, on the same state folder', () => {
    const [program, ...argv] = words(service.ExecStopPost!);
    expect(program).toBe(`${appResources}/agent/postern-agent`);
    const args = serviceArgs(argv);
    expect(args.restoreOnly).toBe(true);
    expect(args.cli.configDir).toBe(`/var/lib/${service.StateDirectory}`);
  });

  it('keeps only the capabilities intercept mode needs', () => {
    expect(service.CapabilityBoundingSet!.split(/\s+/).sort()).toEqual([
      'CAP_CHOWN',
      'CAP_NET_ADMIN',
      'CAP_NET_BIND_SERVICE',
    ]);
    expect(service.NoNewPrivileges).toBe('yes');
    expect(unit.Install!.WantedBy).toBe('multi-user.target');
  });

  it('is installed by postinst where `status` looks for it, with the group the service allows', () => {
    shipped(config.linux.extraResources, 'agent/postern-agent.service');
    expect(config.deb.afterInstall).toBe('packaging/linux/postinst');
    expect(config.rpm.afterInstall).toBe('packaging/linux/postinst');
    expect(config.deb.afterRemove).toBe('packaging/linux/postrm');
    expect(config.deb.fpm).toContain('--before-remove=packaging/linux/prerm');
    const postinst = read('packaging/linux/postinst');
    expect(postinst).toContain('groupadd --system postern');
    const installed = /install -m 0644 "\$APP\/resources\/(\S+)" (\S+)/.exec(postinst);
    expect(installed?.[1]).toBe('agent/postern-agent.service');
    expect(INSTALLED_MARKERS).toContain(installed?.[2]);
    expect(postinst).toContain('systemctl enable --now postern-agent.service');
    expect(read('packaging/linux/prerm')).toContain('systemctl disable --now postern-agent.service');
    expect(read('packaging/linux/postrm')).toContain(`rm -f ${installed?.[2]}`);
  });
});

describe('the launchd daemon (packaging/macos/com.postern.agent.plist)', () => {
  const plist = read('packaging/macos/com.postern.agent.plist');

  it('runs the service command through the shipped launcher at the macOS default socket', () => {
    expect(/<key>Label<\/key>\s*<string>([^<]+)<\/string>/.exec(plist)?.[1]).toBe('com.postern.agent');
    const array = /<key>ProgramArguments<\/key>\s*<array>([\s\S]*?)<\/array>/.exec(plist)![1]!;
    const [program, ...argv] = [...array.matchAll(/<string>([^<]*)<\/string>/g)].map((m) => m[1]!);
    shipped(config.mac.extraResources, 'agent/postern-agent');
    shipped(config.mac.extraResources, 'agent/com.postern.agent.plist');
    expect(program).toBe(`/Applications/${config.productName}.app/Contents/Resources/agent/postern-agent`);
    const args = serviceArgs(argv);
    expect(args.socket).toBe(defaultServiceSocket('darwin'));
    expect(INSTALLED_MARKERS).toContain('/Library/LaunchDaemons/com.postern.agent.plist');
  });
});

describe('the Windows service (packaging/windows/postern-agent.xml, WinSW)', () => {
  const xml = read('packaging/windows/postern-agent.xml').replace(/<!--[\s\S]*?-->/g, '');
  const element = (name: string, within = xml) =>
    new RegExp(`<${name}>([^<]*)</${name}>`).exec(within)?.[1]?.trim();

  it('runs the service command through the shipped launcher at the Windows default pipe', () => {
    shipped(config.win.extraResources, 'agent/postern-agent.xml');
    shipped(config.win.extraResources, 'agent/postern-agent.cmd');
    expect(element('executable')).toBe('%BASE%\\postern-agent.cmd');
    const args = serviceArgs(words(element('arguments')!));
    expect(args.socket).toBe(defaultServiceSocket('win32'));
    expect(element('startmode')).toBe('Automatic');
  });

  it('restores the system after every stop with service --restore-only', () => {
    const poststop = /<poststop>([\s\S]*?)<\/poststop>/.exec(xml)![1]!;
    expect(element('executable', poststop)).toBe('%BASE%\\postern-agent.cmd');
    expect(serviceArgs(words(element('arguments', poststop)!)).restoreOnly).toBe(true);
  });
});
