/**
 * The body of a create or update: `--data JSON` or `--file F` (`-` for standard input) as the base, then
 * the noun's field flags set over it, then (for a create) the name and the fields the API requires that
 * nothing gave. The body is sent as built: the controller validates it and names any field it refuses.
 */
import { readFile } from 'node:fs/promises';
import { UsageError } from '../agent/cli/cli-args.js';
import type { AdminArgs } from './admin-args.js';
import { FIELD_FLAGS, type FieldFlag, type Resource } from './resources.js';

type Body = Record<string, unknown>;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseObject(text: string, source: string): Body {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${source} is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError(`${source} must be a JSON object, such as '{"name":"crm"}'`);
  return value as Body;
}

async function readText(flag: string, file: string): Promise<string> {
  try {
    return file === '-' ? await readStdin() : await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --${flag} ${file}: ${(error as Error).message}`);
  }
}

async function baseBody({ data, file }: AdminArgs['body']): Promise<Body> {
  if (data !== undefined) return parseObject(data, '--data');
  if (file === undefined) return {};
  return parseObject(await readText('file', file), `--file ${file}`);
}

/** A flag that names a file (`--secret-file`): the file's text, without the newline an editor or echo ends it with. */
async function flagValue(flag: FieldFlag, value: unknown): Promise<unknown> {
  if (!('readsFile' in FIELD_FLAGS[flag]) || typeof value !== 'string') return value;
  const text = (await readText(flag, value)).replace(/\r?\n$/, '');
  // The file's content is never shown, not even in an error: it is a secret.
  if (text === '') throw new UsageError(`--${flag} ${value} is empty`);
  return text;
}

/** Sets `a.b` to the value, making `a` an object if it is not one. */
function setField(body: Body, path: string, value: unknown): void {
  const [head, ...rest] = path.split('.');
  if (rest.length === 0) {
    body[head!] = value;
    return;
  }
  const inner = body[head!];
  const child = typeof inner === 'object' && inner !== null ? (inner as Body) : {};
  body[head!] = child;
  setField(child, rest.join('.'), value);
}

export async function buildBody(
  args: AdminArgs,
  resource: Resource,
  create: { name?: string } | undefined,
): Promise<Body> {
  const body = await baseBody(args.body);
  for (const [flag, value] of Object.entries(args.fields) as [FieldFlag, unknown][]) {
    const field = resource.fieldFlags[flag];
    if (!field) throw new UsageError(`--${flag} does not apply to ${resource.noun}`);
    setField(body, field, await flagValue(flag, value));
  }
  const checkOptions = Object.entries(args.checkOptions ?? {});
  if (checkOptions.length > 0 && resource.collection !== 'posture-checks')
    throw new UsageError(`posture check flags do not apply to ${resource.noun}`);
  for (const [field, value] of checkOptions) body[field] = value;
  resource.complete?.(body, {
    fields: args.fields,
    expiresInMs: args.expiresInMs,
    create: create !== undefined,
    now: new Date(),
  });
  if (create) {
    if (create.name !== undefined) body.name = create.name;
    for (const [field, value] of Object.entries(resource.createDefaults ?? {}))
      if (!(field in body)) body[field] = value;
  }
  if (Object.keys(body).length === 0)
    throw new UsageError(`nothing to send: give --data JSON, --file F or a field flag`);
  return body;
}
