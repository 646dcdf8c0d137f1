/**
 * The misfire rule as a pure function: what a claim does with a scheduled time, and where the
 * schedule continues afterwards.
 */

import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MISFIRE_WINDOW_MS,
  decideFire,
  nextFireAtAfterClaim,
  nextFixDelayFireAt,
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

  it('continues a cron claimed ahead of time from the claimed time', () => {
    expect(nextFireAtAfterClaim(everySecond, T, T - 4_000, fire)).toBe(T + 1_000);
  });

  it('continues a late cron after now, so a late claim never turns into a burst', () => {
    expect(nextFireAtAfterClaim(everySecond, T, T + 3_500, fire)).toBe(T + 4_000);
    const skip = decideFire(T, T + 3_600_000, 'DO_NOTHING', 5_000);
    expect(nextFireAtAfterClaim(everySecond, T, T + 3_600_000, skip)).toBe(T + 3_601_000);
  });

  it('continues FIX_RATE in its phase after a misfire', () => {
    expect(nextFireAtAfterClaim(everyTenSeconds, T, T - 1_000, fire)).toBe(T + 10_000);
    const late = decideFire(T, T + 95_000, 'FIRE_ONCE_NOW', 5_000);
    expect(nextFireAtAfterClaim(everyTenSeconds, T, T + 95_000, late)).toBe(T + 100_000);
    expect(nextFireAtAfterClaim(everyTenSeconds, T, T + 100_000, late)).toBe(T + 110_000);
  });

  it('leaves FIX_DELAY without a next time while its run is in flight', () => {
    expect(nextFireAtAfterClaim(delayThirty, T, T - 1_000, fire)).toBeNull();
    const late = decideFire(T, T + 60_000, 'FIRE_ONCE_NOW', 5_000);
    expect(nextFireAtAfterClaim(delayThirty, T, T + 60_000, late)).toBeNull();
  });

  it('continues a skipped FIX_DELAY from now, as no run will end to set it', () => {
    const skip = decideFire(T, T + 60_000, 'DO_NOTHING', 5_000);
    expect(nextFireAtAfterClaim(delayThirty, T, T + 60_000, skip)).toBe(T + 90_000);
  });

  it('sets FIX_DELAY from the end of the previous run', () => {
    expect(nextFixDelayFireAt(delayThirty, T + 1_234)).toBe(T + 31_234);
  });

  it('leaves ONCE and NONE without a next time', () => {
    expect(nextFireAtAfterClaim(once, T, T - 1_000, fire)).toBeNull();
    expect(nextFireAtAfterClaim({ scheduleType: 'NONE', scheduleConf: '' }, T, T, fire)).toBeNull();
  });
});
