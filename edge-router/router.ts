/**
 * One edge router: enrolls on first start (or reads its enrollment from the data folder), listens for agent
 * streams over TLS, and keeps its link to the controller. `startRouter` is what `npm run router` and the
 * controller's embedded router both run.
 */
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { posternVersion } from '../src/common/package-version.js';
import { fingerprintOf } from '../src/common/self-signed-certificate.js';
import { ControllerLink } from './controller-link.js';
import { EnrollmentError, enrollRouter } from './enroll.js';
import { readRouterFiles, writeRouterFiles } from './router-files.js';
import { SessionTable } from './session-table.js';
import { closeServer, createStreamServer } from './stream-server.js';

export interface RouterOptions {
  controllerUrl: string;
  dataDir: string;
  /** one-time enrollment token; needed only until the router has enrolled */
  enrollToken?: string;
  /** address to listen on */
  host: string;
  /** 0 picks a free port */
  port: number;
  /** the name agents reach this router by (defaults to the listening address) */
  advertisedHost?: string;
  /** fail closed after this long without the controller */
  graceMs: number;
  controllerCa?: string;
  /** trust only the controller certificate with this SHA-256 fingerprint (the embedded router's own controller) */
  controllerFingerprint?: string;
  log: Logger;
}

export interface RunningRouter {
  url: string;
  edgeRouterId: string;
  fingerprint: string;
  table: SessionTable;
  link: ControllerLink;
  close(): Promise<void>;
}

export async function startRouter(options: RouterOptions): Promise<RunningRouter> {
  const advertised = options.advertisedHost ?? options.host;
  let files = readRouterFiles(options.dataDir);
  if (options.enrollToken) {
    files = await enrollRouter(options.controllerUrl, options.enrollToken, [advertised], {
      ca: options.controllerCa,
      fingerprint: options.controllerFingerprint,
    });
    writeRouterFiles(options.dataDir, files);
    options.log.info({ edgeRouterId: files.enrollment.edgeRouterId }, 'router enrolled');
  }
  if (!files)
    throw new EnrollmentError(
      `${options.dataDir} holds no enrollment: start once with --enroll TOKEN (from the controller's edge-routers API)`,
    );

  const table = new SessionTable();
  let url = '';
  const version = posternVersion(import.meta.url);
  const link = new ControllerLink(
    {
      controllerUrl: options.controllerUrl,
      edgeRouterId: files.enrollment.edgeRouterId,
      secret: files.enrollment.secret,
      graceMs: options.graceMs,
      controllerCa: options.controllerCa,
      controllerFingerprint: options.controllerFingerprint,
      // Read when the link opens, by which time the listener below knows its port.
      hello: () => ({ t: 'hello', hostname: advertised, urls: { tls: url }, version }),
    },
    table,
    options.log,
  );
  const server = createStreamServer({ ...files, table, link, log: options.log });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  url = `tls://${advertised.includes(':') ? `[${advertised}]` : advertised}:${port}`;
  link.start();
  return {
    url,
    edgeRouterId: files.enrollment.edgeRouterId,
    fingerprint: fingerprintOf(files.certPem),
    table,
    link,
    async close() {
      link.stop();
      table.cutAll('router shutting down');
      await closeServer(server);
    },
  };
}
