/**
 * The router's data folder: its TLS key and certificate and its enrollment (router id, secret, controller).
 * Everything is written owner-only (0600 files in a 0700 folder): the key and the secret are the router.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RouterEnrollment {
  edgeRouterId: string;
  name: string;
  secret: string;
  controllerUrl: string;
}

export interface RouterFiles {
  keyPem: string;
  certPem: string;
  enrollment: RouterEnrollment;
}

const KEY = 'router.key';
const CERT = 'router.crt';
const ENROLLMENT = 'router.json';

export function readRouterFiles(dataDir: string): RouterFiles | undefined {
  if (![KEY, CERT, ENROLLMENT].every((f) => existsSync(join(dataDir, f)))) return undefined;
  return {
    keyPem: readFileSync(join(dataDir, KEY), 'utf8'),
    certPem: readFileSync(join(dataDir, CERT), 'utf8'),
    enrollment: JSON.parse(readFileSync(join(dataDir, ENROLLMENT), 'utf8')) as RouterEnrollment,
  };
}

export function writeRouterFiles(dataDir: string, files: RouterFiles): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  writePrivate(join(dataDir, KEY), files.keyPem);
  writePrivate(join(dataDir, CERT), files.certPem);
  // The enrollment last: its presence means the other two are complete.
  writePrivate(join(dataDir, ENROLLMENT), `${JSON.stringify(files.enrollment, null, 2)}\n`);
}

/** Written beside, then renamed: a crash never leaves half a key. */
function writePrivate(file: string, content: string): void {
  const temp = `${file}.tmp`;
  writeFileSync(temp, content, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}
