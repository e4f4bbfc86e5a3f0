/**
 * `audit list` (and `--follow`) and `audit export`: the audit trail (docs/AUDIT.md) for an administrator at a
 * terminal or a script. The list shows the newest events in time order, newest last, so `--follow` carries on
 * below them; `--json` prints the API's envelope (newest first, as the API sends it), or with `--follow` one
 * event per line. The export streams the controller's own export (JSON lines or CSV) to a file or standard
 * output.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { UsageError } from '../agent/cli/cli-args.js';
import { CliError, EXIT, type ExitCode } from '../agent/cli/cli-errors.js';
import type { AuditEventView } from '../api/audit-text.js';
import { MANAGEMENT_API_PREFIX } from '../api/paths.js';
import { refuseOptionsOutside } from './admin-args.js';
import { signIn, withManagementApi, type AdminContext } from './admin-session.js';
import { auditFilter, auditQueryOf } from './audit-query.js';
import { followAudit } from './audit-follow.js';
import { json } from './output.js';
import { auditLine, auditTable, eventNames } from './audit-output.js';

const COLLECTION = 'audit-events';
const DEFAULT_LIMIT = 50;

async function list(ctx: AdminContext): Promise<ExitCode> {
  const { args } = ctx;
  if (args.words.length) throw new UsageError(`unexpected argument '${args.words[0]}'`);
  const query = auditQueryOf(args, new Date());
  const limit = args.list.limit ?? DEFAULT_LIMIT;
  return withManagementApi(ctx, async (api) => {
    if (args.audit.follow) {
      // A sign-in the controller forgot (a restart with a new store, a session timeout) is made again.
      api.client.setReauthenticator(async () => {
        await signIn(ctx, api.client);
        return true;
      });
    }
    const filter = await auditFilter(api, query);
    const page = await api.list(COLLECTION, {
      ...(filter ? { filter } : {}),
      limit,
      offset: args.list.offset,
    });
    const events = page.data as unknown as AuditEventView[];
    const chronological = [...events].reverse();
    const names = args.json ? new Map<string, string>() : await eventNames(api, events);
    if (args.audit.follow) {
      for (const e of chronological) ctx.print(args.json ? json(e) : auditLine(e, names));
      await followAudit(
        ctx,
        api,
        filter,
        chronological,
        events.length < (page.meta.pagination?.totalCount ?? 0),
      );
      return EXIT.ok;
    }
    if (args.json) {
      ctx.print(json(page));
      return EXIT.ok;
    }
    if (events.length === 0) {
      ctx.print(filter ? 'No audit events match the filter.' : 'No audit events.');
      return EXIT.ok;
    }
    ctx.print(auditTable(chronological, names));
    const total = page.meta.pagination?.totalCount ?? events.length;
    const offset = args.list.offset ?? 0;
    if (offset > 0 || offset + events.length < total) {
      const older = offset + events.length < total ? `; --offset ${offset + events.length} for older` : '';
      ctx.print(`(${offset + 1}–${offset + events.length} newest of ${total.toLocaleString()}${older})`);
    }
    return EXIT.ok;
  });
}

const FORMATS = ['jsonl', 'csv'] as const;

/** Counts the lines going through (an event per line: JSON lines, and CSV but its header). */
function lineCounter() {
  const counter = { lines: 0, stream: undefined as unknown as Transform };
  counter.stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      for (const byte of chunk) if (byte === 10) counter.lines++;
      done(null, chunk);
    },
  });
  return counter;
}

async function toStandardOutput(body: NodeJS.ReadableStream): Promise<void> {
  for await (const chunk of body)
    if (!process.stdout.write(chunk as Buffer)) await once(process.stdout, 'drain');
}

async function exportEvents(ctx: AdminContext): Promise<ExitCode> {
  const { args } = ctx;
  if (args.words.length) throw new UsageError(`unexpected argument '${args.words[0]}'`);
  const format = args.audit.format;
  if (!FORMATS.includes(format as (typeof FORMATS)[number]))
    throw new UsageError(
      format === undefined
        ? 'audit export needs --format jsonl or --format csv'
        : `--format must be jsonl or csv, got '${format}'`,
    );
  const query = auditQueryOf(args, new Date());
  const output = args.audit.output;
  return withManagementApi(ctx, async (api) => {
    const filter = await auditFilter(api, query);
    const { body, headers } = await api.client.download(`/${COLLECTION}/export`, {
      prefix: MANAGEMENT_API_PREFIX,
      query: { format: format!, ...(filter ? { filter } : {}) },
    });
    const counter = lineCounter();
    if (output) {
      // Written beside it and renamed when whole: a failed export never leaves a file that looks complete.
      const partial = `${output}.partial`;
      try {
        await pipeline(body, counter.stream, createWriteStream(partial, { mode: 0o600 }));
        await rename(partial, output);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
    } else {
      await toStandardOutput(body.pipe(counter.stream));
    }
    const rows = format === 'csv' ? Math.max(0, counter.lines - 1) : counter.lines;
    const matching = headers['postern-export-truncated'];
    if (matching !== undefined)
      throw new CliError(
        `the export stopped at ${rows.toLocaleString()} events of ${Number(matching).toLocaleString()} ` +
          `matching (the controller's cap); export the rest with --since set to the last event's createdAt`,
      );
    if (output) ctx.print(`Wrote ${rows.toLocaleString()} events to ${output}.`);
    return EXIT.ok;
  });
}

const VERBS = {
  list: { run: list, takes: { list: true, audit: 'list', fields: ['identity', 'type'] } },
  export: { run: exportEvents, takes: { audit: 'export', fields: ['identity', 'type'], list: true } },
} as const;

export async function auditCommand(ctx: AdminContext): Promise<ExitCode> {
  const verb = VERBS[ctx.args.verb as keyof typeof VERBS];
  if (!verb)
    throw new UsageError(
      ctx.args.verb
        ? `unknown verb '${ctx.args.verb}' for audit; use list, export`
        : 'audit needs a verb: list, export',
    );
  refuseOptionsOutside(ctx.args, verb.takes);
  if (ctx.args.verb === 'export' && (ctx.args.list.limit !== undefined || ctx.args.list.offset !== undefined))
    throw new UsageError(
      `--${ctx.args.list.limit !== undefined ? 'limit' : 'offset'} does not apply to 'audit export'`,
    );
  return verb.run(ctx);
}
