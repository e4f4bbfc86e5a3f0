import type { Api } from './typed-app.js';
import { VersionDetail } from '../../src/api/resources/version.js';
import { detail } from './envelope.js';
import { detailEnvelope } from '../../src/api/resources/envelopes.js';
import { POSTERN_VERSION } from '../version.js';

/** GET /version: what this controller is and which APIs it serves (OpenZiti's shape). */
export function registerVersion(app: Api, path = '/version'): void {
  app.get(
    path,
    {
      config: { access: 'public' },
      schema: { tags: ['Informational'], response: { 200: detailEnvelope(VersionDetail) } },
    },
    async (request) => {
      // The address the connection actually reached, never the client's Host header (which anyone can set,
      // and which clients would then follow).
      const base = `${request.protocol}://${hostPort(request.socket.localAddress, request.socket.localPort)}`;
      const api = (p: string) => ({ v1: { path: p, version: '1', apiBaseUrls: [`${base}${p}`] } });
      return detail({
        version: `v${POSTERN_VERSION}`,
        revision: 'postern',
        buildDate: '',
        runtimeVersion: process.version,
        capabilities: [],
        apiVersions: {
          edge: api('/edge/client/v1'),
          'edge-client': api('/edge/client/v1'),
          'edge-management': api('/edge/management/v1'),
        },
      });
    },
  );
}

function hostPort(address: string | undefined, port: number | undefined): string {
  const host = (address ?? '127.0.0.1').replace(/^::ffff:/, '');
  return `${host.includes(':') ? `[${host}]` : host}:${port ?? 0}`;
}
