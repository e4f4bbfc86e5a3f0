/**
 * Retention of the audit trail (docs/AUDIT.md), on whichever store the project runs: events older than the
 * retention go, in pages, however many there are; the ones inside it stay; a second prune finds nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from '../helpers/controller.js';
import { recordAudit } from '../../controller/audit/audit-trail.js';
import { pruneAuditTrail } from '../../controller/audit/audit-retention.js';

const DAY = 24 * 3600_000;
let tc: TestController;

beforeAll(async () => {
  tc = await startTestController({ auditRetentionDays: 30 });
});
afterAll(() => tc.dispose());

describe('audit retention', () => {
  it('deletes the events past the retention, more than a page of them, and keeps the rest', async () => {
    const { ctx } = tc;
    const now = ctx.clock.now().getTime();
    const marker = `retention-${now}`;
    const record = (ageMs: number) =>
      recordAudit(ctx, { type: 'admin.created', identityId: marker }, new Date(now - ageMs));
    // 1,201 old events (past several pages), and recent ones including one just inside the retention.
    for (let i = 0; i < 1201; i++) await record(31 * DAY + i * 1000);
    const kept = [await record(0), await record(DAY), await record(30 * DAY - 60_000)];
    const count = async () =>
      (
        await ctx.store.auditEvents.list({
          limit: 1,
          offset: 0,
          filter: `identityId = "${marker}"`,
        })
      ).totalCount;
    expect(await count()).toBe(1204);

    expect(await pruneAuditTrail(ctx, ctx.config.auditRetentionDays)).toBeGreaterThanOrEqual(1201);
    const left = await ctx.store.auditEvents.list({
      limit: 10,
      offset: 0,
      filter: `identityId = "${marker}"`,
    });
    expect(left.items.map((e) => e.id).sort()).toEqual(kept.map((e) => e.id).sort());
    expect(await pruneAuditTrail(ctx, ctx.config.auditRetentionDays)).toBe(0);
  }, 300_000);
});
