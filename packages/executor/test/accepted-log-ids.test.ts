/**
 * The accepted logIds in memory: both bounds (time and count) drop the oldest first, a forgotten
 * or re-remembered id is skipped where it was, and what `entries` gives (what the journal
 * compacts to) is every id still remembered, once, oldest first.
 */
import { describe, expect, it } from 'vitest';
import { AcceptedLogIds } from '../src/accepted-log-ids.js';

function clocked(ttlMs: number, limit: number) {
  let now = 1_000;
  const ids = new AcceptedLogIds(ttlMs, limit, () => now);
  return {
    ids,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('AcceptedLogIds', () => {
  it('forgets an id once its time is up, oldest first', () => {
    const { ids, advance } = clocked(1_000, 100);
    ids.add(1);
    advance(600);
    ids.add(2);
    advance(500);
    expect(ids.has(1)).toBe(false);
    expect(ids.has(2)).toBe(true);
    ids.add(3);
    expect([...ids.entries()].map(([id]) => id)).toEqual([2, 3]);
  });

  it('keeps at most the limit, dropping the oldest', () => {
    const { ids, advance } = clocked(60_000, 3);
    for (let id = 1; id <= 5; id++) {
      ids.add(id);
      advance(1);
    }
    expect([1, 2, 3, 4, 5].map((id) => ids.has(id))).toEqual([false, false, true, true, true]);
    expect([...ids.entries()].map(([id]) => id)).toEqual([3, 4, 5]);
  });

  it('skips a forgotten id and counts a re-remembered one from its new time', () => {
    const { ids, advance } = clocked(1_000, 3);
    ids.add(1);
    ids.add(2);
    ids.forget(2);
    advance(10);
    ids.add(1);
    ids.add(3);
    expect([...ids.entries()].map(([id]) => id)).toEqual([1, 3]);
    // Two more: the limit of 3 drops the oldest remembered (1 at its new time), never a stale entry twice.
    ids.add(4);
    ids.add(5);
    expect([...ids.entries()].map(([id]) => id)).toEqual([3, 4, 5]);
    expect(ids.has(2)).toBe(false);
  });

  it('gives an id restored twice at one time once', () => {
    const { ids } = clocked(1_000, 10);
    ids.restore(7, 1_000);
    ids.restore(7, 1_000);
    ids.restore(8, 1_000);
    expect([...ids.entries()]).toEqual([
      [7, 1_000],
      [8, 1_000],
    ]);
  });

  it('stays bounded through many more ids than its limit', () => {
    const { ids, advance } = clocked(60_000, 1_000);
    for (let id = 1; id <= 50_000; id++) {
      ids.add(id);
      if (id % 100 === 0) advance(1);
    }
    const kept = [...ids.entries()].map(([id]) => id);
    expect(kept).toHaveLength(1_000);
    expect(kept[0]).toBe(49_001);
    expect(kept.at(-1)).toBe(50_000);
  });
});
