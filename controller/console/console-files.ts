/**
 * Which file of the built console a request names: only files inside the build folder, never a parent
 * folder, a hidden file or anything an encoded separator or NUL byte could smuggle out of it.
 */
import { extname, resolve, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The absolute path `requested` (the URL path below `/console/`, still percent-encoded) names inside `root`,
 * or null when it is not a plain path there. Decoded exactly once, so `%252e%252e` stays a harmless name.
 */
export function resolveConsoleFile(root: string, requested: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(requested);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const segments = decoded.split('/').filter((s) => s !== '');
  // `..` climbs out; a leading dot is no file the build writes (and `.` adds nothing).
  if (segments.some((s) => s.startsWith('.'))) return null;
  const base = resolve(root);
  const full = resolve(base, ...segments);
  return full === base || full.startsWith(base + sep) ? full : null;
}

/** A request for a file (`app.js`, `logo.svg`) rather than a page of the console's own routing. */
export function looksLikeFile(requested: string): boolean {
  const last = requested.split('/').pop() ?? '';
  return extname(last) !== '';
}

export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}
