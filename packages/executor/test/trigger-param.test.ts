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

  it('reads the workflow of a workflow node fire as the protocol parser does', () => {
    const workflow = {
      runId: 41,
      nodeKey: 'load',
      param: 'day=1',
      upstream: {
        extract: { status: 'succeeded', output: { rows: [1, 2] }, extra: 1 },
        check: { status: 'skipped' },
      },
      later: true,
    };
    const body = { ...usual, workflow };
    expect(readTriggerParam(body)).toStrictEqual(parseTriggerParam(body));
    expect(readTriggerParam(body).workflow).toStrictEqual({
      runId: 41,
      nodeKey: 'load',
      param: 'day=1',
      upstream: {
        extract: { status: 'succeeded', output: { rows: [1, 2] } },
        check: { status: 'skipped', output: null },
      },
    });
    const bare = { ...usual, workflow: { runId: 2, nodeKey: 'A', param: null } };
    expect(readTriggerParam(bare)).toStrictEqual(parseTriggerParam(bare));
    expect(readTriggerParam(bare).workflow).toStrictEqual({
      runId: 2,
      nodeKey: 'A',
      param: null,
      upstream: {},
    });
  });

  it('leaves workflow out when it is absent or null, as the protocol parser does', () => {
    for (const body of [usual, { ...usual, workflow: null }]) {
      expect(readTriggerParam(body)).toStrictEqual(parseTriggerParam(body));
      expect(readTriggerParam(body)).not.toHaveProperty('workflow');
    }
  });

  it('leaves an upstream key that no node may have to the protocol parser', () => {
    const body = JSON.parse(
      `{"jobId":7,"logId":1,"executorHandler":"h","executorParams":"","workflow":{"runId":1,"nodeKey":"B","upstream":{"__proto__":{"status":"succeeded"},"A":{"status":"failed"}}}}`,
    );
    expect(readTriggerParam(body)).toStrictEqual(parseTriggerParam(body));
    expect(Object.getPrototypeOf(readTriggerParam(body).workflow?.upstream)).not.toHaveProperty('status');
  });

  it.each([
    ['a logId that is not an integer', { ...usual, logId: '123' }],
    ['a negative timeout', { ...usual, executorTimeout: -1 }],
    ['an unknown block strategy', { ...usual, executorBlockStrategy: 'LATER' }],
    ['a shard index past the total', { ...usual, broadcastIndex: 3 }],
    ['no jobId', { ...usual, jobId: undefined }],
    ['a body that is no object', 'run'],
    ['a workflow that is no object', { ...usual, workflow: 'run 41' }],
    ['a workflow without a runId', { ...usual, workflow: { nodeKey: 'A' } }],
    ['a workflow node key that is not one', { ...usual, workflow: { runId: 1, nodeKey: 'a b' } }],
    [
      'an upstream key that is not one',
      { ...usual, workflow: { runId: 1, nodeKey: 'A', upstream: { '1': {} } } },
    ],
    [
      'an upstream node without a status',
      { ...usual, workflow: { runId: 1, nodeKey: 'A', upstream: { B: {} } } },
    ],
    ['an upstream that is a list', { ...usual, workflow: { runId: 1, nodeKey: 'A', upstream: [] } }],
  ])('refuses %s with the protocol parser’s error naming the field', (_what, body) => {
    const error = errorOf(() => readTriggerParam(body));
    expect(error).not.toBe('no error');
    expect(error).toBe(errorOf(() => parseTriggerParam(body)));
  });
});
