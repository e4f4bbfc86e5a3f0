/**
 * The use case "an API session reports its posture" (`POST /posture-response`, `/posture-response-bulk`):
 * every item is validated first and the whole report is stored in one transaction, so a bad item leaves
 * nothing behind; the identity is re-evaluated in the same transaction (sessions revoked, lastChangeAt moved);
 * a report that repeats what is stored only moves the facts' time. Only binaries some check asks about are
 * kept, so what a user can store is bounded by the administrator's checks.
 *
 * The identity's posture data is read twice on the full path, never three times: once here, outside any
 * transaction, to tell a repeated report from news (and which stored binaries no check asks about any more),
 * and once by the evaluation, under the identity's access lock, whose read this answer reuses. That second
 * read is not redundant: between the first and the lock, other requests commit (the other reports of this
 * group commit, an MFA pass, another device's login and session on PostgreSQL), and the evaluation must
 * decide on what they left, or it would revoke, as orphans, sessions whose API session it did not see.
 */
import type { ControllerContext } from '../../platform/context.js';
import { validationError } from '../../api-error.js';
import { AccessResolver } from '../decisions/access-resolver.js';
import type { AccessService, SessionHolder } from '../access-service.js';
import { applyResponses, graceServices, type GraceService } from './apply-responses.js';
import { parseResponses } from '../../posture/response-items.js';
import { askedProcesses } from './asked-processes.js';
import { isRepeatedReport, reportedSlots } from './repeated-report.js';

export class PostureReports {
  constructor(
    private readonly ctx: ControllerContext,
    private readonly access: AccessService,
  ) {}

  /**
   * Stores the report of the caller's API session (`values` as the wire gave them; `indexed` when they came
   * as a list, so problems name the item) and answers the services a wake or unlock in it has put into their
   * MFA grace period. Throws 400 naming the field for a bad item, having stored nothing.
   */
  async report(caller: SessionHolder, values: unknown[], indexed: boolean): Promise<GraceService[]> {
    const { store, clock } = this.ctx;
    const parsed = parseResponses(values, indexed);
    if (!parsed.ok) throw validationError(parsed.problems);
    // Reports on binaries no check asks about are valid but not kept (see asked-processes.ts).
    const asked = await askedProcesses(store);
    const items = parsed.items.filter((item) => item.typeId !== 'PROCESS' || asked.has(item.path));
    const { session, identity } = caller;
    // The usual report repeats the last one: only its time moves, and nothing is evaluated (repeated-report.ts).
    const stored = await store.posture.data.load(identity.id);
    if (isRepeatedReport(stored, session.id, items, asked)) {
      await store.posture.data.refreshReported(identity.id, reportedSlots(items), clock.now());
      return [];
    }
    // Storing and re-evaluating share one commit with the reports of other agents arriving at the same
    // moment (group commit); the answer goes out once that commit is durable.
    return store.batch(async () => {
      const now = clock.now();
      // Binaries no check asks about, as read above: meanwhile other reports (on the same checks) only stored
      // asked ones or deleted these same ones, and deleting one already gone deletes nothing.
      for (const stale of stored.processes.filter((p) => !asked.has(p.path)))
        await store.posture.data.deleteProcess(identity.id, stale.path);
      await applyResponses(this.ctx, identity.id, session.id, items, now);
      const resolver = await AccessResolver.of(store);
      const evaluated = await this.access.reportStored(identity.id, resolver);
      // The report writes no TOTP pass, so the data the evaluation read holds the pass it started from; an
      // identity deleted meanwhile has none left: the data read above stands in.
      return graceServices(resolver, identity, evaluated ?? stored, session.id, items, now);
    });
  }
}
