/**
 * The `run` body reader: its direct path for the usual shape must give exactly what the
 * protocol package's parser gives, and leave everything else to it.
 */
import { parseTriggerParam } from '@tickwheel/protocol';
import { describe, expect, it } from 'vitest';
import { readTriggerParam } from '../src/trigger-param.js';

const usual = {
  jobId: 7,
  executorHandler: 'hello',
  executorParams: 'p',
  executorBlockStrategy: 'COVER_EARLY',
  executorTimeout: 30,
  logId: 123,
  logDateTime: 1_728_027_839_906,
  glueType: 'BEAN',
  glueSource: '',
  glueUpdatetime: 0,
  broadcastIndex: 1,
  broadcastTotal: 3,
};

function errorOf(read: () => unknown): string {
  try {
    read();
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
}

describe('readTriggerParam', () => {
  it('reads the usual shape as the protocol parser does, unknown keys left out', () => {
    const body = { ...usual, somethingElse: true };
    expect(readTriggerParam(body)).toEqual(parseTriggerParam(body));
    expect(readTriggerParam(body)).not.toHaveProperty('somethingElse');
  });

  it('fills the defaults of missing optional fields as the protocol parser does', () => {
    const body = { jobId: 7, logId: 123, executorHandler: 'hello', executorParams: null };
    expect(readTriggerParam(body)).toEqual(parseTriggerParam(body));
    expect(readTriggerParam(body)).toMatchObject({
      executorParams: '',
      executorBlockStrategy: 'SERIAL_EXECUTION',
      glueType: 'BEAN',
      broadcastTotal: 1,
    });
  });

  it.each([
    ['a logId that is not an integer', { ...usual, logId: '123' }],
    ['a negative timeout', { ...usual, executorTimeout: -1 }],
    ['an unknown block strategy', { ...usual, executorBlockStrategy: 'LATER' }],
    ['a shard index past the total', { ...usual, broadcastIndex: 3 }],
    ['no jobId', { ...usual, jobId: undefined }],
    ['a body that is no object', 'run'],
  ])('refuses %s with the protocol parser’s error naming the field', (_what, body) => {
    const error = errorOf(() => readTriggerParam(body));
    expect(error).not.toBe('no error');
    expect(error).toBe(errorOf(() => parseTriggerParam(body)));
  });
});
