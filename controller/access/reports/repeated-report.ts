/**
 * A device reports its posture on every cycle, and almost always reports what it reported last time. Such a
 * report changes no input of any access decision (the facts are the same, the API session already has its
 * row, no wake or unlock), so it needs no transaction and no evaluation: only the facts' `lastUpdatedAt`
 * moves (`refreshReported`). Time-driven changes (MFA timeouts, grace ends) have their own timers, and
 * policy or check changes re-evaluate on their own events, so skipping the evaluation here misses nothing.
 */
import type { FactSlotRef } from '../../store/posture-repository.js';
import type { PostureSnapshot } from '../../posture-model.js';
import type { AskedPaths } from './asked-processes.js';
import type { ResponseItem } from '../../posture/response-items.js';

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** Whether storing `item` would leave `stored` as it is, apart from the time. */
function repeats(stored: PostureSnapshot, item: ResponseItem): boolean {
  switch (item.typeId) {
    case 'OS': {
      const os = stored.os;
      return (
        os !== null &&
        os.postureCheckId === item.id &&
        os.type === item.type &&
        os.version === item.version &&
        os.build === item.build
      );
    }
    case 'MAC':
      return (
        stored.mac !== null &&
        stored.mac.postureCheckId === item.id &&
        sameList(stored.mac.addresses, item.macAddresses)
      );
    case 'DOMAIN':
      return (
        stored.domain !== null &&
        stored.domain.postureCheckId === item.id &&
        stored.domain.domain === item.domain
      );
    case 'PROCESS': {
      const p = stored.processes.find((s) => s.path === item.path);
      return (
        p !== undefined &&
        p.postureCheckId === item.id &&
        p.isRunning === item.isRunning &&
        p.hash === item.hash &&
        sameList(p.signerFingerprints, item.signerFingerprints)
      );
    }
    case 'ENDPOINT_STATE':
      // A wake or an unlock is news (it starts a grace period); "neither" changes nothing.
      return !item.woken && !item.unlocked;
    default: {
      // Both are built field by field in the schema's order, so equal facts have equal JSON.
      const fact = stored.facts?.[item.typeId];
      return (
        fact !== undefined &&
        fact.postureCheckId === item.id &&
        JSON.stringify(fact.value) === JSON.stringify(item.fact)
      );
    }
  }
}

/**
 * Whether the report repeats what is stored: the API session's row exists, no binary is kept that no check
 * asks about any more (the full path deletes those), and every item repeats its stored value.
 */
export function isRepeatedReport(
  stored: PostureSnapshot,
  apiSessionId: string,
  items: readonly ResponseItem[],
  asked: AskedPaths,
): boolean {
  return (
    stored.apiSessions[apiSessionId] !== undefined &&
    stored.processes.every((p) => asked.has(p.path)) &&
    items.every((item) => repeats(stored, item))
  );
}

/** The stored facts the report's items name. */
export function reportedSlots(items: readonly ResponseItem[]): FactSlotRef[] {
  const slots: FactSlotRef[] = [];
  for (const item of items) {
    if (item.typeId === 'OS') slots.push({ kind: 'os' });
    else if (item.typeId === 'MAC') slots.push({ kind: 'mac' });
    else if (item.typeId === 'DOMAIN') slots.push({ kind: 'domain' });
    else if (item.typeId === 'PROCESS') slots.push({ kind: 'process', path: item.path });
    else if (item.typeId !== 'ENDPOINT_STATE') slots.push({ kind: 'fact', typeId: item.typeId });
  }
  return slots;
}
