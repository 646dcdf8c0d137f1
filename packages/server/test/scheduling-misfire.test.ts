/**
 * The misfire rule as a pure function: what a claim does with a scheduled time, and where the
 * schedule continues afterwards.
 */

import { nextFireTimes, type Schedule } from '@tickwheel/protocol';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MISFIRE_WINDOW_MS,
  decideFire,
  MAX_TIMES_PER_CLAIM,
  nextFixDelayFireAt,
  planClaimedTimes,
} from '../src/scheduling/misfire.js';

const T = Date.parse('2026-03-01T12:00:00Z');
const everySecond = { scheduleType: 'CRON', scheduleConf: '* * * * * ?' };
const everyTenSeconds = { scheduleType: 'FIX_RATE', scheduleConf: '10' };
const delayThirty = { scheduleType: 'FIX_DELAY', scheduleConf: '30' };
const once = { scheduleType: 'ONCE', scheduleConf: String(T) };
const fire = { action: 'fire', triggerType: 'CRON', dueAt: T } as const;

describe('misfire', () => {
  it('fires a time claimed ahead of it at that time', () => {
    expect(decideFire(T, T - 4_000, 'DO_NOTHING', DEFAULT_MISFIRE_WINDOW_MS)).toEqual(fire);
  });

  it('fires a time late by no more than the window at that time, whatever the policy', () => {
    expect(decideFire(T, T + 5_000, 'DO_NOTHING', 5_000)).toEqual(fire);
    expect(decideFire(T, T + 5_000, 'FIRE_ONCE_NOW', 5_000)).toEqual(fire);
  });

  it('skips a time missed by more than the window under DO_NOTHING', () => {
    expect(decideFire(T, T + 5_001, 'DO_NOTHING', 5_000)).toEqual({ action: 'skip', triggerType: 'MISFIRE' });
  });

  it('fires a time missed by more than the window once now under FIRE_ONCE_NOW', () => {
    expect(decideFire(T, T + 60_000, 'FIRE_ONCE_NOW', 5_000)).toEqual({
      action: 'fire',
      triggerType: 'MISFIRE',
      dueAt: T + 60_000,
    });
  });

  it('treats a policy it does not know as DO_NOTHING', () => {
    expect(decideFire(T, T + 60_000, 'SOMETHING_ELSE', 5_000).action).toBe('skip');
  });

  it('claims a cron ahead of time at the due time only and continues from it', () => {
    expect(planClaimedTimes(everySecond, T, T - 4_000, 'DO_NOTHING', 5_000)).toEqual({
      times: [{ scheduledAt: T, decision: fire }],
      nextFireAt: T + 1_000,
    });
  });

  it('records every time up to the claim’s reach ahead in one claim, and continues after the last', () => {
    const planned = planClaimedTimes(everySecond, T, T - 4_000, 'DO_NOTHING', 5_000, T + 2_500);
    expect(planned.times.map((t) => [t.scheduledAt, t.decision])).toEqual(
      [T, T + 1_000, T + 2_000].map((at) => [at, { action: 'fire', triggerType: 'CRON', dueAt: at }]),
    );
    expect(planned.nextFireAt).toBe(T + 3_000);
    // A reach short of the due time still records the due time, and only it.
    expect(planClaimedTimes(everySecond, T, T - 4_000, 'DO_NOTHING', 5_000, T - 1).times).toHaveLength(1);
    // FIX_RATE keeps its grid.
    const rate = planClaimedTimes(everyTenSeconds, T, T - 1_000, 'DO_NOTHING', 5_000, T + 25_000);
    expect(rate.times.map((t) => t.scheduledAt)).toEqual([T, T + 10_000, T + 20_000]);
    expect(rate.nextFireAt).toBe(T + 30_000);
  });

  it('records at most MAX_TIMES_PER_CLAIM times of one job in one claim, however far it reaches', () => {
    const planned = planClaimedTimes(everySecond, T, T - 1_000, 'DO_NOTHING', 5_000, T + 3_600_000);
    expect(planned.times).toHaveLength(MAX_TIMES_PER_CLAIM);
    expect(planned.nextFireAt).toBe(T + MAX_TIMES_PER_CLAIM * 1_000);
  });

  it('records a FIX_DELAY or ONCE job’s due time only, whatever the reach', () => {
    for (const schedule of [delayThirty, once]) {
      expect(planClaimedTimes(schedule, T, T - 4_000, 'DO_NOTHING', 5_000, T + 100_000)).toEqual({
        times: [{ scheduledAt: T, decision: fire }],
        nextFireAt: null,
      });
    }
  });

  it('fires every time a late claim finds inside the window, each at its own time', () => {
    const planned = planClaimedTimes(everySecond, T, T + 3_500, 'DO_NOTHING', 5_000);
    expect(planned.times.map((t) => [t.scheduledAt, t.decision])).toEqual(
      [T, T + 1_000, T + 2_000, T + 3_000].map((at) => [
        at,
        { action: 'fire', triggerType: 'CRON', dueAt: at },
      ]),
    );
    expect(planned.nextFireAt).toBe(T + 4_000);
  });

  it('turns the times missed by more than the window into one record saying how many, then fires the window', () => {
    const skipped = planClaimedTimes(everySecond, T, T + 12_000, 'DO_NOTHING', 5_000);
    expect(skipped.times[0]).toEqual({
      scheduledAt: T,
      decision: { action: 'skip', triggerType: 'MISFIRE' },
      missed: { count: 7, atLeast: false },
    });
    expect(skipped.times.slice(1).map((t) => t.scheduledAt)).toEqual(
      [7, 8, 9, 10, 11, 12].map((s) => T + s * 1_000),
    );
    expect(skipped.nextFireAt).toBe(T + 13_000);
    const firedNow = planClaimedTimes(everySecond, T, T + 12_000, 'FIRE_ONCE_NOW', 5_000);
    expect(firedNow.times[0]?.decision).toEqual({
      action: 'fire',
      triggerType: 'MISFIRE',
      dueAt: T + 12_000,
    });
    expect(firedNow.times).toHaveLength(7);
  });

  it('never walks a long pause time by time: a cron an hour late counts 100 or more and continues inside the window', () => {
    const planned = planClaimedTimes(everySecond, T, T + 3_600_000, 'DO_NOTHING', 5_000);
    expect(planned.times[0]?.missed).toEqual({ count: 100, atLeast: true });
    expect(planned.times).toHaveLength(7);
    expect(planned.nextFireAt).toBe(T + 3_601_000);
  });

  it('counts the missed times of a cron as the whole list of its next 100 times would, however late the claim', () => {
    // The count as it was first written: the next 100 times, those before the window's first.
    const reference = (schedule: Schedule, before: number) => {
      const later = nextFireTimes(schedule, T, 100).filter((t) => t < before);
      return later.length === 100
        ? { count: 100, atLeast: true }
        : { count: 1 + later.length, atLeast: false };
    };
    const schedules: Schedule[] = [
      everySecond,
      { scheduleType: 'CRON', scheduleConf: '0/7 * * * * ?' },
      { scheduleType: 'CRON', scheduleConf: '0 0/3 * * * ?', timeZone: 'Asia/Shanghai' },
    ];
    for (const schedule of schedules) {
      for (const lateSeconds of [6, 7, 12, 13, 14, 20, 21, 60, 104, 105, 106, 107, 200, 700, 3_600]) {
        const now = T + lateSeconds * 1_000;
        const planned = planClaimedTimes(schedule, T, now, 'DO_NOTHING', 5_000);
        const firstInWindow = planned.times[1]?.scheduledAt ?? planned.nextFireAt!;
        expect(planned.times[0]?.missed, `${schedule.scheduleConf} ${lateSeconds} s late`).toEqual(
          reference(schedule, firstInWindow),
        );
      }
    }
  });

  it('keeps FIX_RATE on its grid after a misfire and counts the missed times exactly', () => {
    expect(planClaimedTimes(everyTenSeconds, T, T - 1_000, 'DO_NOTHING', 5_000).nextFireAt).toBe(T + 10_000);
    const late = planClaimedTimes(everyTenSeconds, T, T + 95_000, 'FIRE_ONCE_NOW', 5_000);
    expect(late.times.map((t) => [t.scheduledAt, t.decision.triggerType])).toEqual([
      [T, 'MISFIRE'],
      [T + 90_000, 'CRON'],
    ]);
    expect(late.times[0]?.missed).toEqual({ count: 9, atLeast: false });
    expect(late.nextFireAt).toBe(T + 100_000);
  });

  it('leaves FIX_DELAY without a next time while its run is in flight', () => {
    expect(planClaimedTimes(delayThirty, T, T - 1_000, 'DO_NOTHING', 5_000).nextFireAt).toBeNull();
    const late = planClaimedTimes(delayThirty, T, T + 60_000, 'FIRE_ONCE_NOW', 5_000);
    expect(late.times).toHaveLength(1);
    expect(late.nextFireAt).toBeNull();
  });

  it('continues a skipped FIX_DELAY from now, as no run will end to set it', () => {
    expect(planClaimedTimes(delayThirty, T, T + 60_000, 'DO_NOTHING', 5_000).nextFireAt).toBe(T + 90_000);
  });

  it('sets FIX_DELAY from the end of the previous run', () => {
    expect(nextFixDelayFireAt(delayThirty, T + 1_234)).toBe(T + 31_234);
  });

  it('leaves ONCE and NONE without a next time', () => {
    expect(planClaimedTimes(once, T, T - 1_000, 'DO_NOTHING', 5_000)).toEqual({
      times: [{ scheduledAt: T, decision: fire }],
      nextFireAt: null,
    });
    expect(planClaimedTimes({ scheduleType: 'NONE', scheduleConf: '' }, T, T, 'DO_NOTHING', 5_000)).toEqual({
      times: [],
      nextFireAt: null,
    });
  });
});
