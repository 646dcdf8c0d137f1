/**
 * The scheduling options that depend on each other: the record-ahead's default follows the
 * look-ahead, and a value out of range is refused naming the option.
 */
import { describe, expect, it } from 'vitest';
import { resolveSchedulingOptions } from '../src/scheduling/options.js';

describe('scheduling options', () => {
  it('records half the look-ahead further by default, and the due time only with recordAheadMs 0', () => {
    expect(resolveSchedulingOptions({ nodeId: 'n' }).recordAheadMs).toBe(2_500);
    expect(resolveSchedulingOptions({ nodeId: 'n', lookAheadMs: 10_000 }).recordAheadMs).toBe(5_000);
    expect(resolveSchedulingOptions({ nodeId: 'n', recordAheadMs: 0 }).recordAheadMs).toBe(0);
  });

  it.each([-1, 1.5, 600_001, '2500'])('refuses recordAheadMs %s, naming it', (value) => {
    expect(() => resolveSchedulingOptions({ nodeId: 'n', recordAheadMs: value as number })).toThrow(
      expect.objectContaining({
        code: 'TW_ERR_INVALID_OPTION',
        message: expect.stringContaining('recordAheadMs: must be an integer from 0 to 600000'),
      }),
    );
  });

  it('hands fires over 60 ms ahead by default, at most half the lease safety margin', () => {
    expect(resolveSchedulingOptions({ nodeId: 'n' })).toMatchObject({
      prepareAheadMs: 60,
      wheelResolutionMs: 20,
    });
    // A 300 ms lease keeps a 90 ms margin: the default lead is 45 ms then.
    expect(resolveSchedulingOptions({ nodeId: 'n', leaseTtlMs: 300 }).prepareAheadMs).toBe(45);
    expect(resolveSchedulingOptions({ nodeId: 'n', leaseSafetyMarginMs: 0 }).prepareAheadMs).toBe(0);
    expect(resolveSchedulingOptions({ nodeId: 'n', prepareAheadMs: 0 }).prepareAheadMs).toBe(0);
    expect(() =>
      resolveSchedulingOptions({ nodeId: 'n', leaseSafetyMarginMs: 100, prepareAheadMs: 51 }),
    ).toThrow(
      expect.objectContaining({
        code: 'TW_ERR_INVALID_OPTION',
        message: expect.stringContaining(
          'prepareAheadMs: must be at most half of leaseSafetyMarginMs (50 ms), got 51',
        ),
      }),
    );
    expect(() => resolveSchedulingOptions({ nodeId: 'n', prepareAheadMs: -1 })).toThrow(
      expect.objectContaining({
        message: expect.stringContaining('prepareAheadMs: must be an integer from 0 to 1000'),
      }),
    );
  });
});
