/**
 * Plain HTTP is for loopback only. A controller bound to any other address serves HTTPS: with the
 * administrator's certificate, or a self-signed one made on its first start, kept in the data folder across
 * restarts, whose fingerprint it prints for agents to pin. The agent CLI pins it with
 * --controller-fingerprint and refuses a controller that presents another certificate.
 * (The controller binds 0.0.0.0 here; every request still goes to 127.0.0.1.)
 */
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ControllerProcess } from '../helpers/controller.js';
import { controllerProcessScope } from '../helpers/controller-processes.js';
import { withoutProgress } from '../helpers/cli-progress.js';

const AGENT_CLI = join(import.meta.dirname, '..', '..', 'src', 'agent', 'cli.ts');
const { running, newDir, start } = controllerProcessScope();

async function startOnAllAddresses(
  dataDir: string,
): Promise<{ p: ControllerProcess; url: string; fingerprint: string }> {
  const p = await start(['--data-dir', dataDir, '--host', '0.0.0.0', '--port', '0', '--no-router'], {
    POSTERN_ADMIN_PASSWORD: 'tls-admin-password',
  });
  // The pin line is the last one printed about the certificate; each line is its own write, so wait for it.
  await until(() => /--controller-fingerprint ([0-9A-F:]{95})/.test(p.output()));
  const fingerprint = /SHA-256 fingerprint ([0-9A-F:]{95})/.exec(p.output())![1]!;
  return { p, url: p.url.replace('0.0.0.0', '127.0.0.1'), fingerprint };
}

async function until(condition: () => boolean): Promise<void> {
  // Generous: a loaded machine may hold a child's second write back for seconds.
  for (let i = 0; i < 1200 && !condition(); i++) await new Promise((r) => setTimeout(r, 50));
}

function agent(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const configDir = newDir();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', AGENT_CLI, '--credential-store', 'memory', '--config-dir', configDir, ...args],
      { env: { ...process.env, POSTERN_PASSWORD: 'tls-admin-password' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the controller off loopback', () => {
  it('serves HTTPS with a self-signed certificate made once, prints its fingerprint, and keeps it across restarts', async () => {
    const dir = newDir();
    const first = await startOnAllAddresses(dir);
    expect(first.p.url).toMatch(/^https:\/\//);
    expect(first.p.output()).toContain(`--controller-fingerprint ${first.fingerprint}`);
    expect(statSync(join(dir, 'tls-key.pem')).mode & 0o777).toBe(0o600);
    const cert = readFileSync(join(dir, 'tls-cert.pem'), 'utf8');

    // plain HTTP to it is not answered as HTTP
    const plain = await fetch(first.url.replace('https:', 'http:') + '/version').catch((e: Error) => e);
    expect(plain instanceof Error || plain.status === 400).toBe(true);

    await first.p.stop();
    running.splice(0);
    const second = await startOnAllAddresses(dir);
    expect(second.fingerprint).toBe(first.fingerprint);
    expect(readFileSync(join(dir, 'tls-cert.pem'), 'utf8')).toBe(cert);
  });

  it('the agent signs in with the printed fingerprint pinned, and refuses without it or with another', async () => {
    const { url, fingerprint } = await startOnAllAddresses(newDir());
    const pinned = await agent([
      '--controller',
      url,
      '--controller-fingerprint',
      fingerprint,
      'login',
      'admin',
    ]);
    expect(withoutProgress(pinned.stderr)).toBe('');
    expect(pinned.stdout).toContain(`Signed in to ${url} as admin.`);

    const unpinned = await agent(['--controller', url, 'login', 'admin']);
    expect(unpinned.code).not.toBe(0);
    expect(unpinned.stderr).toContain('--controller-fingerprint');

    const wrong = await agent([
      '--controller',
      url,
      '--controller-fingerprint',
      'AB'.repeat(32),
      'login',
      'admin',
    ]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('not the pinned one');
  });

  it('a loopback controller without a certificate stays plain HTTP and makes none', async () => {
    const dir = newDir();
    const p = await start(['--data-dir', dir, '--port', '0', '--no-router'], {
      POSTERN_ADMIN_PASSWORD: 'tls-admin-password',
    });
    expect(p.url).toMatch(/^http:\/\/127\.0\.0\.1:/);
    expect(() => statSync(join(dir, 'tls-cert.pem'))).toThrow();
  });
});
