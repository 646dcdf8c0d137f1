/**
 * The warning about dropped database connections: one per interval however many drop at once
 * (a restart drops the whole pool), saying how many it held back.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { warnConnectionErrors } from '../src/store/index.js';

function recording(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('warnConnectionErrors', () => {
  it('warns once per interval and counts the errors it held back', () => {
    const { logger, lines } = recording();
    let now = 1_000_000;
    const report = warnConnectionErrors(logger, 10_000, () => now);

    for (let i = 0; i < 10; i++) report(new Error('Connection terminated unexpectedly'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, droppedSinceLastWarning: 0 });

    now += 9_999;
    report(new Error('Connection terminated unexpectedly'));
    expect(lines).toHaveLength(1);

    now += 1;
    report(new Error('Connection terminated unexpectedly'));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ droppedSinceLastWarning: 10 });
  });
});
