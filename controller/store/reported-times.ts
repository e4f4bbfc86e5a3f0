/**
 * A report that repeats stored facts moves their `lastUpdatedAt` (store/posture-repository.ts,
 * `refreshReported`); both stores keep the moved time in their cached snapshot first and write it behind.
 * These find and move a slot's time in a snapshot.
 */
import type { IdentityPostureData, PostureSnapshot } from '../posture-model.js';
import type { FactSlotRef } from './posture-repository.js';
import { kindOfSlot } from './rows/posture-rows.js';
import { withFields } from '../../src/common/with-fields.js';

/**
 * A repeated report moves a fact's time in memory only once this much has passed since the time held: an agent
 * may report many times a second, and each move builds a new snapshot (and so a new access decision).
 */
export const REPEATED_FACT_RESOLUTION_MS = 1_000;

export const slotKey = (slot: FactSlotRef) =>
  slot.kind === 'process' ? `process:${slot.path}` : kindOfSlot(slot);

export function slotIn(data: PostureSnapshot, slot: FactSlotRef): { lastUpdatedAt: Date } | null | undefined {
  if (slot.kind === 'process') return data.processes.find((p) => p.path === slot.path);
  if (slot.kind === 'fact')
    return data.facts && Object.hasOwn(data.facts, slot.typeId) ? data.facts[slot.typeId] : undefined;
  return data[slot.kind];
}

/** Whether the slot is held with a time less than the resolution before `at` (so it need not move). */
function heldWithin(data: PostureSnapshot, slot: FactSlotRef, at: Date): boolean {
  const held = slotIn(data, slot);
  return !!held && at.getTime() - held.lastUpdatedAt.getTime() < REPEATED_FACT_RESOLUTION_MS;
}

/**
 * The cached snapshot after a report that repeats `slots` at `at`: undefined when every slot is held within
 * the resolution (nothing moves), else a new entry (what callers hold stays as it was) with the held slots'
 * times moved to `at`.
 */
export function afterRepeat(
  cached: IdentityPostureData,
  slots: readonly FactSlotRef[],
  at: Date,
): IdentityPostureData | undefined {
  if (slots.every((slot) => heldWithin(cached, slot, at))) return undefined;
  const next = withFields(cached, { processes: [...cached.processes] });
  for (const slot of slots) moveTime(next, slot, new Date(at.getTime()));
  return next;
}

/** Moves the slot's time in `data`, a new entry not yet shared with anyone, replacing the slot's object. */
function moveTime(data: IdentityPostureData, slot: FactSlotRef, at: Date): void {
  if (slot.kind === 'os' && data.os) data.os = withFields(data.os, { lastUpdatedAt: at });
  else if (slot.kind === 'mac' && data.mac) data.mac = withFields(data.mac, { lastUpdatedAt: at });
  else if (slot.kind === 'domain' && data.domain)
    data.domain = withFields(data.domain, { lastUpdatedAt: at });
  else if (slot.kind === 'fact' && data.facts?.[slot.typeId])
    data.facts = withFields(data.facts, {
      [slot.typeId]: withFields(data.facts[slot.typeId]!, { lastUpdatedAt: at }),
    });
  else if (slot.kind === 'process') {
    const i = data.processes.findIndex((p) => p.path === slot.path);
    if (i >= 0) data.processes[i] = withFields(data.processes[i]!, { lastUpdatedAt: at });
  }
}
