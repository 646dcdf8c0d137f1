/**
 * The checks every options module of the server shares (server, scheduling, dispatch, alarm
 * queue): one way to name a bad option, one integer range check, one TypeBox description of a
 * bounded integer with its default. A bad option throws `TW_ERR_INVALID_OPTION` with the message
 * `<option>: <reason>`.
 */
import { TickwheelError } from '@tickwheel/protocol';
import { type TInteger, Type } from 'typebox';

/** The error of a bad option: names the option and the reason. */
export function invalid(option: string, reason: string): TickwheelError {
  return new TickwheelError('TW_ERR_INVALID_OPTION', `${option}: ${reason}`, option);
}

/** An integer option's schema: its range and its default, the one place either is written. */
export type BoundedInteger = TInteger & { minimum: number; maximum: number; default: number };

/** A TypeBox integer from `minimum` to `maximum` whose default is `fallback`. */
export function boundedInteger(minimum: number, maximum: number, fallback: number): BoundedInteger {
  return Type.Integer({ minimum, maximum, default: fallback }) as BoundedInteger;
}

/** `value`, or the schema's default when absent; throws when it is not an integer in the schema's range. */
export function integerOption(option: string, value: unknown, schema: BoundedInteger): number {
  return integerIn(option, value, schema.default, schema.minimum, schema.maximum);
}

/** `value`, or `fallback` when absent; throws when it is not an integer from `min` to `max`. */
export function integerIn(
  option: string,
  value: unknown,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(option, `must be an integer from ${min} to ${max}`);
  }
  return value;
}

export function booleanOption(option: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw invalid(option, 'must be true or false');
  return value;
}

export function nonEmptyString(option: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw invalid(option, 'must be a non-empty string');
  return value;
}

export function optionalFunction<T>(option: string, value: T | undefined, fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value !== 'function') throw invalid(option, 'must be a function');
  return value;
}

/** A clock option: `fallback` when absent; throws when it lacks now(), setTimer() or clearTimer(). */
export function clockOption<C extends { now: unknown; setTimer: unknown; clearTimer: unknown }>(
  option: string,
  clock: C | undefined,
  fallback: C,
): C {
  if (clock === undefined) return fallback;
  if (
    typeof clock?.now !== 'function' ||
    typeof clock.setTimer !== 'function' ||
    typeof clock.clearTimer !== 'function'
  ) {
    throw invalid(option, 'must have now(), setTimer() and clearTimer()');
  }
  return clock;
}
