/**
 * The descriptor budget's arithmetic: the limit read from a `/proc/self/limits` text, event streams stopped at
 * `limit - 2 × reserve`, other requests at `limit - reserve`, connections accepted between recounts counted,
 * and no refusal where the limit cannot be read.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FdBudget, openFileLimit } from '../../../controller/http/fd-budget.js';
import { RefusalLog } from '../../../controller/http/refusal-log.js';

describe('FdBudget', () => {
  it('reads the soft limit of Max open files', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'postern-limits-')), 'limits');
    writeFileSync(
      file,
      'Limit                     Soft Limit           Hard Limit           Units\n' +
        'Max open files            256                  4096                 files\n',
    );
    expect(openFileLimit(file)).toBe(256);
    expect(openFileLimit(join(file, 'missing'))).toBeNull();
  });

  it('stops event streams at limit - 2 x reserve and other requests at limit - reserve', () => {
    let open = 0;
    let clock = 0;
    const budget = new FdBudget(
      1024,
      () => open,
      () => clock,
    );
    open = 767;
    expect([budget.allows('event-stream'), budget.allows('request')]).toEqual([true, true]);
    open = 768;
    clock += 1000;
    expect([budget.allows('event-stream'), budget.allows('request')]).toEqual([false, true]);
    open = 896;
    clock += 1000;
    expect(budget.allows('request')).toBe(false);
    // A small limit keeps at least 32 in reserve.
    expect(new FdBudget(128, () => 64).allows('event-stream')).toBe(false);
    expect(new FdBudget(128, () => 63).allows('event-stream')).toBe(true);
  });

  it('counts connections accepted since the last recount, and never refuses without a limit', () => {
    let clock = 0;
    const budget = new FdBudget(
      1024,
      () => 760,
      () => clock,
    );
    expect(budget.allows('event-stream')).toBe(true);
    for (let i = 0; i < 8; i++) budget.noteAccepted();
    expect(budget.allows('event-stream')).toBe(false);
    clock += 1000;
    expect(budget.allows('event-stream')).toBe(true);
    expect(new FdBudget(null, () => 1_000_000).allows('request')).toBe(true);
  });
});

describe('RefusalLog', () => {
  it('logs the first refusal of a kind, then one a minute with the count meanwhile', () => {
    const lines: Record<string, unknown>[] = [];
    let clock = 0;
    const log = new RefusalLog(
      { warn: ((facts: Record<string, unknown>) => lines.push(facts)) as never },
      () => clock,
    );
    for (let i = 0; i < 100; i++) log.refused('streams', 'refused');
    log.refused('other', 'refused');
    expect(lines).toHaveLength(2);
    clock += 60_000;
    log.refused('streams', 'refused');
    expect(lines.at(-1)).toMatchObject({ refusal: 'streams', alsoRefusedInTheLastMinute: 99 });
  });
});
