/**
 * A standalone router whose controller serves a certificate it cannot trust says so at the default log level,
 * naming the cause and the fix (`--controller-ca`), and does not repeat the message on every retry.
 */
import { createServer, type Server } from 'node:https';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/controller.js';
import { spawnRouter, type RouterProcess } from '../helpers/router-process.js';
import { createSelfSignedCertificate } from '../../src/common/self-signed-certificate.js';
import { writeRouterFiles } from '../../edge-router/router-files.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(condition: () => boolean): Promise<boolean> {
  for (let i = 0; i < 600 && !condition(); i++) await new Promise((r) => setTimeout(r, 50));
  return condition();
}

describe('a router that cannot trust its controller', () => {
  it('logs the cause and --controller-ca at the default level, backing off instead of once per retry', async () => {
    // A TLS server with a self-signed certificate stands in for the controller; it counts link attempts.
    const identity = await createSelfSignedCertificate('untrusted-controller', []);
    let attempts = 0;
    const server: Server = createServer({ cert: identity.certPem, key: identity.keyPem });
    server.on('connection', () => attempts++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    const controllerUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

    // Already enrolled (the link is what fails, not enrollment).
    const dataDir = tempDir('postern-router-link-log-');
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const routerIdentity = await createSelfSignedCertificate('postern-router', []);
    writeRouterFiles(dataDir, {
      ...routerIdentity,
      enrollment: { edgeRouterId: 'er-test', name: 'edge-test', secret: 'not-a-real-secret', controllerUrl },
    });
    const router: RouterProcess = await spawnRouter([
      '--controller',
      controllerUrl,
      '--data-dir',
      dataDir,
      '--port',
      '0',
    ]);
    cleanups.push(() => router.stop());

    const said = () => router.output().match(/controller link failed: [^"]*/g) ?? [];
    await until(() => attempts >= 6 && said().length > 0);
    expect(attempts).toBeGreaterThanOrEqual(6);
    expect(said()[0]).toContain('self-signed');
    expect(said()[0]).toContain('--controller-ca');
    // The same failure on every attempt, said fewer times than it happened.
    expect(said().length).toBeLessThan(attempts);
    expect(router.output()).not.toContain('not-a-real-secret');
  });
});
