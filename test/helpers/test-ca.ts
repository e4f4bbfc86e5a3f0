/**
 * A throw-away certificate authority made with openssl (EC P-256, one day) and a server certificate it
 * issues for the given names and IP addresses: what a private company CA gives an internal web server. Clients trust it
 * with `--cacert <caFile>`, so a test proves the real certificate verifies under its real name.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';

export interface TestCa {
  /** the CA's certificate (PEM file), what a client trusts */
  caFile: string;
  /** the server's certificate and key (PEM files) */
  certFile: string;
  keyFile: string;
}

export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Writes ca.pem, server.pem and server.key into `dir` (which must exist). */
export function issueServerCertificate(dir: string, names: readonly string[]): TestCa {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  ssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '1',
    '-subj',
    '/CN=Postern Test CA',
  );
  ssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${names[0]}`);
  writeFileSync(
    join(dir, 'server.ext'),
    `subjectAltName=${names.map((n) => (isIP(n) ? `IP:${n}` : `DNS:${n}`)).join(',')}\n` +
      'extendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n',
  );
  ssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '1',
    '-extfile',
    'server.ext',
  );
  return { caFile: join(dir, 'ca.pem'), certFile: join(dir, 'server.pem'), keyFile: join(dir, 'server.key') };
}
