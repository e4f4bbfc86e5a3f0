/**
 * `--zac DIR`: OpenZiti's own console (ZAC, github.com/openziti/ziti-console) served from a build in DIR at
 * `/zac/` on the controller's origin, as an OpenZiti controller's `zac` web binding serves it. ZAC then takes
 * its own origin for the controller's, and its calls to the management API need no CORS.
 *
 * Its answers carry `nosniff`, `no-referrer` and no framing, but no content security policy: the build is
 * OpenZiti's, not Postern's (its index loads styles inline, and an administrator may point it at another
 * controller), so a policy written here could only break it.
 */
import type { FastifyInstance } from 'fastify';
import { registerSinglePageApp } from './single-page-app.js';

export const ZAC_PATH = '/zac';

const ZAC_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const NOT_FOUND_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ZAC</title></head>
<body><h1>No ZAC build here</h1>
<p>The folder given to <code>--zac</code> has no <code>index.html</code>. Build OpenZiti's console
(github.com/openziti/ziti-console) and give the controller the folder its build wrote.</p>
</body></html>
`;

export function registerZac(app: FastifyInstance, dir: string): void {
  registerSinglePageApp(app, { path: ZAC_PATH, dir, headers: ZAC_HEADERS, notBuiltPage: NOT_FOUND_PAGE });
}
