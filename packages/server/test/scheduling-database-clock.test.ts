/**
 * `DatabaseClock`: the local clock corrected to the database's by readings timed over a round
 * trip. The offset is the whole millisecond below the reading's, so the corrected clock is never
 * ahead of the database's, and the reading with the shortest round trip of the last eight counts.
 */
import { ManualClock } from '@tickwheel/test-fixtures/manual-clock';
import { describe, expect, it } from 'vitest';
import { DatabaseClock } from '../src/scheduling/clock.js';

const T0 = Date.parse('2026-03-01T12:00:00Z');

describe('DatabaseClock', () => {
  it('takes the whole millisecond below a reading, never the one above', () => {
    const clock = new DatabaseClock(new ManualClock(T0));
    // Read 1,000.5 ms ahead (the reading at the middle of a 1 ms round trip): 1,000, not 1,001.
    clock.sample({ localBefore: T0, databaseNow: T0 + 1_001, localAfter: T0 + 1 });
    expect(clock.offsetMs).toBe(1_000);
    expect(clock.now()).toBe(T0 + 1_000);
    // Behind by half a millisecond: a whole one behind.
    clock.sample({ localBefore: T0, databaseNow: T0, localAfter: T0 + 1 });
    expect(clock.offsetMs).toBe(-1);
  });

  it('keeps the reading with the shortest round trip of the last eight', () => {
    const clock = new DatabaseClock(new ManualClock(T0));
    clock.sample({ localBefore: T0, databaseNow: T0 + 500, localAfter: T0 + 2 });
    // A slower reading (a busy pool) does not replace it.
    clock.sample({ localBefore: T0, databaseNow: T0 + 900, localAfter: T0 + 40 });
    expect(clock.offsetMs).toBe(499);
    expect(clock.roundTripMs).toBe(2);
    // Eight readings later the fast one is gone: the best of those eight counts (the latest of equals).
    for (let i = 0; i < 8; i++)
      clock.sample({ localBefore: T0, databaseNow: T0 + 700 + i, localAfter: T0 + 10 });
    expect(clock.roundTripMs).toBe(10);
    expect(clock.offsetMs).toBe(702);
  });
});
