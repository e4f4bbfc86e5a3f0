/**
 * Request paths under `/edge/` and `/fabric/` cleaned as OpenZiti's controller cleans them (Go's `path.Clean`) before routing:
 * repeated slashes collapse and a trailing slash goes. OpenZiti's console asks for `…/identities/<id>//` (an
 * entity's detail), `…/identities/<id>/services/?limit=…` (its related lists), `…/v1//identities/<id>` and
 * `/fabric/v1//routers?limit=1000` (its topology views).
 * Other paths (the web console's pages) are left as they are; so is the query.
 */
export function cleanApiPath(url: string): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (!path.startsWith('/edge/') && !path.startsWith('/fabric/')) return url;
  const cleaned = path.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1');
  return cleaned === path ? url : cleaned + (q < 0 ? '' : url.slice(q));
}
