/**
 * What `npm test` needs from the machine besides node_modules, and what to do when some of it is missing.
 * This is the one list of those Debian packages; the pretest script and its tests read it from here.
 */
import { findPostgresBinaries } from './postgres-binaries.js';

export interface Prerequisite {
  /** The Debian package. */
  readonly package: string;
  /** What the suites run from it, checked instead of the package where there is no dpkg (unless isPresent is set). */
  readonly commands: readonly string[];
  /**
   * For software the suites look for beyond PATH themselves: whether it is on this machine. When it is, the
   * package counts as installed whatever dpkg says, since any version, from whichever package, will do.
   */
  readonly isPresent?: (path: string) => boolean;
}

export const TEST_PREREQUISITES: readonly Prerequisite[] = [
  // Playwright launches this path (playwright.config.ts); Playwright's own browser downloads are unreachable.
  { package: 'chromium', commands: ['/usr/bin/chromium'] },
  { package: 'xvfb', commands: ['Xvfb'] },
  // A real Secret Service for the keychain suites: gnome-keyring in a private D-Bus session.
  { package: 'gnome-keyring', commands: ['gnome-keyring-daemon'] },
  { package: 'dbus', commands: ['dbus-run-session', 'dbus-send'] },
  { package: 'libsecret-tools', commands: ['secret-tool'] },
  // Certificates for the TLS suites, and a second client for the tunnel and TLS suites.
  { package: 'openssl', commands: ['openssl'] },
  { package: 'curl', commands: ['curl'] },
  // Intercept mode's suites: network namespaces, a TUN device and routes (iproute2), redirection rules (nftables).
  { package: 'iproute2', commands: ['ip'] },
  { package: 'nftables', commands: ['nft'] },
  // The agent's fact collectors run for real: a LUKS volume on a loop device (cryptsetup), the GNOME screen
  // lock settings through gsettings with the desktop schemas.
  { package: 'cryptsetup-bin', commands: ['cryptsetup'] },
  { package: 'libglib2.0-bin', commands: ['gsettings'] },
  { package: 'gsettings-desktop-schemas', commands: ['gsettings'] },
  // A real database server for the storage suites (test/helpers/postgres-server.ts). Debian's package keeps its
  // programs off PATH, in a folder per major version; postgres-binaries.ts finds them for both.
  {
    package: 'postgresql',
    commands: ['initdb', 'postgres'],
    isPresent: (path) => findPostgresBinaries({ path }) !== undefined,
  },
];

export const SKIP_VARIABLE = 'POSTERN_SKIP_TEST_PREREQUISITES';

export type PrerequisitePlan =
  | { action: 'none' }
  | { action: 'install'; packages: string[]; announcement: string }
  | { action: 'report'; message: string };

export interface MachineState {
  missing: readonly Prerequisite[];
  isRoot: boolean;
  hasAptGet: boolean;
}

export function planTestPrerequisites({ missing, isRoot, hasAptGet }: MachineState): PrerequisitePlan {
  if (missing.length === 0) return { action: 'none' };
  const packages = missing.map((p) => p.package);
  const names = packages.join(' ');
  if (hasAptGet && isRoot)
    return { action: 'install', packages, announcement: `test prerequisites: installing ${names}` };
  if (hasAptGet)
    return {
      action: 'report',
      message: `test prerequisites missing: ${names}. Install them with: sudo apt-get install -y ${names}`,
    };
  // Without apt the Debian names may not be the local ones, so name the commands the suites run too.
  const described = missing.map((p) => `${p.package} (${p.commands.join(', ')})`).join(', ');
  return {
    action: 'report',
    message:
      `test prerequisites missing: ${described}. Install them with your system's package manager, ` +
      `or set ${SKIP_VARIABLE}=1 to run the tests without them.`,
  };
}
