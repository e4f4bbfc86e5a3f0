/**
 * `GET /audit-events/export` (docs/AUDIT.md) on a real controller, on whichever store the project runs: a
 * filtered range streamed oldest first as JSON lines and as CSV (RFC 4180, formula-looking cells defused),
 * across several store pages without repeating or skipping a row even where many events share one moment,
 * cut at the cap with a header saying so, and a bad filter or format refused with the error envelope before
 * anything is streamed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';
import { unique } from '../helpers/posture-world.js';
import { recordAudit } from '../../controller/audit/audit-trail.js';
import { AUDIT_EXPORT_PAGE, openAuditRange } from '../../controller/audit/audit-export.js';
import { csvCell } from '../../controller/audit/audit-csv.js';

const EXPORT = `${MGMT}/audit-events/export`;

let tc: TestController;
let admin: Api;

beforeAll(async () => {
  tc = await startTestController();
  admin = new Api(tc.url);
  await admin.login('admin', ADMIN_PASSWORD);
});
afterAll(async () => {
  await tc?.dispose();
});

/** `count` events about one made-up identity, `sameMoment` of them at one instant (ties broken by id). */
async function seed(count: number, sameMoment: number, extra: { details?: object; address?: string } = {}) {
  const identityId = unique('exported');
  const { store } = tc.ctx;
  const base = Date.now() - 3_600_000;
  await store.transaction(async () => {
    for (let i = 0; i < count; i++) {
      const at = new Date(i < sameMoment ? base : base + i);
      const record = { type: 'admin.updated' as const, identityId, address: extra.address };
      await recordAudit({ store }, { ...record, details: { i, ...extra.details } }, at);
    }
  });
  return identityId;
}

const exportOf = (query: string) =>
  fetch(`${tc.url}${EXPORT}?${query}`, { headers: { 'zt-session': admin.token! } });

describe('audit export', { timeout: 120_000 }, () => {
  it('streams a filtered range as JSON lines, oldest first, across pages, each row once', async () => {
    // More than two store pages, the first 700 at one moment: paging must break the tie by id.
    const total = AUDIT_EXPORT_PAGE * 2 + 200;
    const identityId = await seed(total, 700);
    const res = await exportOf(`format=jsonl&filter=${encodeURIComponent(`identityId = "${identityId}"`)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    expect(res.headers.get('postern-export-truncated')).toBeNull();
    const rows = (await res.text())
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(rows).toHaveLength(total);
    expect(new Set(rows.map((r) => r.id)).size).toBe(total);
    expect(rows.map((r) => r.details.i).sort((a, b) => a - b)).toEqual([...Array(total).keys()]);
    const times = rows.map((r) => r.createdAt as string);
    expect([...times].sort()).toEqual(times);
    expect(Object.keys(rows[0])).toEqual([
      'id',
      'type',
      'createdAt',
      'actor',
      'address',
      'identityId',
      'serviceId',
      'reference',
      'details',
    ]);
  });

  it('writes CSV by RFC 4180 with formula-looking cells prefixed by a quote', async () => {
    const identityId = await seed(2, 0, {
      address: '=2+5',
      details: { note: '=HYPERLINK("http://evil")', text: 'a,"b"\r\nc' },
    });
    const res = await exportOf(`format=csv&filter=${encodeURIComponent(`identityId = "${identityId}"`)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    const body = await res.text();
    const [header, ...rest] = body.split('\r\n');
    expect(header).toBe('id,type,createdAt,actor,address,identityId,serviceId,reference,details');
    expect(body.endsWith('\r\n')).toBe(true);
    // details is JSON: quoted (it holds commas and quotes), inner quotes doubled; it starts with `{`, no prefix
    expect(rest.filter(Boolean)).toHaveLength(2);
    // the address a request claimed cannot become a formula; details is JSON, quoted, quotes doubled
    expect(rest[0]).toContain(`,admin.updated,`);
    expect(rest[0]).toContain(`,'=2+5,${identityId},,`);
    expect(rest.join('\r\n')).toContain('""note"":""=HYPERLINK(\\""http://evil\\"")""');
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-1')).toBe("'-1");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\tx')).toBe("'\tx");
    expect(csvCell('\rx')).toBe(`"'\rx"`);
    expect(csvCell('=a,b')).toBe(`"'=a,b"`);
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell(null)).toBe('');
    expect(csvCell({ id: 'x', name: 'Ann' })).toBe('"{""id"":""x"",""name"":""Ann""}"');
  });

  it('stops at the cap and says how many matched', async () => {
    const identityId = await seed(7, 3);
    const filter = `identityId = "${identityId}"`;
    const range = await openAuditRange(tc.ctx.store, filter, { maxRows: 5, pageSize: 2 });
    expect(range).toMatchObject({ matching: 7, truncated: true });
    const got: number[] = [];
    for await (const event of range.events) got.push(event.details.i as number);
    expect(got).toHaveLength(5);
    expect(new Set(got).size).toBe(5);
    const whole = await openAuditRange(tc.ctx.store, filter, { maxRows: 7, pageSize: 2 });
    expect(whole.truncated).toBe(false);
    let n = 0;
    for await (const _ of whole.events) n++;
    expect(n).toBe(7);
  });

  it('refuses a bad filter or format with the error envelope before streaming anything', async () => {
    const cases: [string, string][] = [
      [`format=csv&filter=${encodeURIComponent('nonsense ===')}`, 'filter'],
      [`format=jsonl&filter=${encodeURIComponent('noSuchField = "x"')}`, 'filter'],
      [`format=jsonl&filter=${encodeURIComponent('type = "x" sort by createdAt desc')}`, 'filter'],
      [`format=jsonl&filter=${encodeURIComponent('type = "x" limit 5')}`, 'filter'],
      [`format=jsonl&filter=${encodeURIComponent(`type = "${'x'.repeat(900)}"`)}`, 'filter'],
      ['format=xlsx', 'format'],
      ['', 'format'],
    ];
    for (const [query, field] of cases) {
      const res = await exportOf(query);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(res.headers.get('content-type')).toContain('application/json');
      const body = (await res.json()) as { error: { code: string; cause?: { field?: string } } };
      expect({ query, field: body.error.cause?.field ?? body.error.code }).toEqual({ query, field });
    }
    // Not an administrator: 401 as every management route.
    const anonymous = await fetch(`${tc.url}${EXPORT}?format=csv`);
    expect(anonymous.status).toBe(401);
  });
});
