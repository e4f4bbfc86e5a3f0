/**
 * Replays requests as OpenZiti's own clients send them: the method, the path and query exactly as the client
 * puts them on the wire, the client's headers, its JSON body or none at all, and then checks that the answer has
 * the status the client accepts and every field the client goes on to read, of the type it reads it as.
 *
 * node:http rather than fetch, so nothing is normalised on the way: a `//` in the path, `Content-Type` on a GET
 * and `Content-Length: 0` on a body-less POST reach the controller as the client sends them.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { expect } from 'vitest';

/** What a client reads a field as. `array+` is a non-empty array; `absent` is a field the client must not find. */
export type Kind =
  'string' | 'number' | 'boolean' | 'object' | 'array' | 'array+' | 'string[]' | 'null' | 'absent';

export interface Step {
  /** what the client does, in words */
  does: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** path and query as they go on the wire (see `browserUrl` and `goQuery`) */
  path: string;
  headers: Record<string, string>;
  /** a JSON body; `''` sends `Content-Length: 0` and nothing, as Go's net/http sends a body-less POST */
  body?: unknown;
  status: number;
  /** `data.apiVersions.edge-management.v1.path`, `data[].name` (every item): what the client reads next */
  reads?: Record<string, Kind | Kind[]>;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  /** the controller's JSON, read as loosely as the client reads it */
  body: any;
}

/**
 * A URL string as a browser sends it (ZAC builds its query strings by hand and never encodes them): the
 * WHATWG URL parser percent-encodes space, `"`, `<`, `>` and `'` in the query, and leaves `=` and `&` alone.
 */
export function browserUrl(raw: string): string {
  const q = raw.indexOf('?');
  if (q < 0) return raw;
  const encode = (s: string) =>
    s.replace(/[ "<>']/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return raw.slice(0, q) + '?' + encode(raw.slice(q + 1));
}

/** Go's `url.Values.Encode()` (the CLI's and the go-openapi clients' queries): keys sorted, space as `+`. */
export function goQuery(params: Record<string, string | string[]>): string {
  const escape = (s: string) =>
    encodeURIComponent(s)
      .replace(/%20/g, '+')
      .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const pairs = Object.keys(params)
    .sort()
    .flatMap((k) => [params[k]!].flat().map((v) => `${escape(k)}=${escape(v)}`));
  return pairs.length ? `?${pairs.join('&')}` : '';
}

function kindsOf(value: unknown): Kind[] {
  if (value === undefined) return ['absent'];
  if (value === null) return ['null'];
  if (Array.isArray(value)) {
    const kinds: Kind[] = ['array'];
    if (value.length > 0) kinds.push('array+');
    if (value.every((v) => typeof v === 'string')) kinds.push('string[]');
    return kinds;
  }
  return [typeof value as Kind];
}

/** Every value at `path`; a `[]` segment stands for each item of that array. */
function valuesAt(body: unknown, path: string): { at: string; value: unknown }[] {
  let current: { at: string; value: unknown }[] = [{ at: '', value: body }];
  for (const part of path.split('.')) {
    const each = part.endsWith('[]');
    const key = each ? part.slice(0, -2) : part;
    current = current.flatMap(({ at, value }) => {
      const next =
        value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
      const here = at ? `${at}.${key}` : key;
      if (!each) return [{ at: here, value: next }];
      return Array.isArray(next) ? next.map((v, i) => ({ at: `${here}[${i}]`, value: v })) : [];
    });
  }
  return current;
}

/** What is missing or of another type than the client reads it as; [] when the answer has it all. */
export function readProblems(body: unknown, reads: Record<string, Kind | Kind[]>): string[] {
  const problems: string[] = [];
  for (const [path, expected] of Object.entries(reads)) {
    const wanted = [expected].flat();
    for (const { at, value } of valuesAt(body, path)) {
      const found = kindsOf(value);
      if (!wanted.some((k) => found.includes(k)))
        problems.push(`${at}: the client reads ${wanted.join(' or ')}, found ${found[found.length - 1]}`);
    }
  }
  return problems;
}

export function send(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl);
  const payload = body === undefined ? undefined : body === '' ? '' : JSON.stringify(body);
  const all = { ...headers };
  if (payload !== undefined) all['content-length'] = String(Buffer.byteLength(payload));
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, method, path, headers: all }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const json = (res.headers['content-type'] ?? '').includes('json') && text !== '';
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: json ? JSON.parse(text) : text });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Sends the step and checks its status and every field the client reads; returns the answer. */
export async function replay(baseUrl: string, step: Step): Promise<Answer> {
  const answer = await send(baseUrl, step.method, step.path, step.headers, step.body);
  const said = `${step.does}: ${step.method} ${step.path} answered ${answer.status} ${JSON.stringify(answer.body).slice(0, 400)}`;
  expect(answer.status, said).toBe(step.status);
  const problems = step.reads ? readProblems(answer.body, step.reads) : [];
  expect(problems, `${said}\n${problems.join('\n')}`).toEqual([]);
  return answer;
}
