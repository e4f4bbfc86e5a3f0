/** The console's webhook form offers exactly the event types the audit trail records. */
import { describe, expect, it } from 'vitest';
import { AUDIT_EVENT_TYPES } from '../../../controller/audit/audit-model.js';
import { EVENT_TYPES } from '../../../console/src/pages/webhooks/webhook-types.js';

describe("the console's event types", () => {
  it("are the trail's (a new type must be added to console/src/pages/webhooks/webhook-types.ts)", () => {
    expect([...EVENT_TYPES].sort()).toEqual([...AUDIT_EVENT_TYPES].sort());
  });
});
