import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { callUrl, isInstanceId, MAX_INSTANCE_ID_LENGTH, WireMessages } from '../src/constants.js';
import { BLOCK_STRATEGIES, ROUTE_STRATEGIES, SCRIPT_GLUE, TRIGGER_TYPES } from '../src/enums.js';
import { isTickwheelError, TickwheelError } from '../src/errors.js';
import {
  capHandleMsg,
  encodeCallbackBody,
  encodeLogParam,
  executorRegistryParam,
  MAX_HANDLER_NAME_LENGTH,
  MAX_REGISTRY_HANDLERS,
  parseCallbackBody,
  parseKillParam,
  parseLogParam,
  parseLogResult,
  parseRegistryHandlers,
  parseRegistryInstance,
  parseRegistryParam,
  parseReturnT,
  parseTriggerParam,
  returnFail,
  returnSuccess,
} from '../src/messages.js';
import { parseWith } from '../src/validation.js';

function errorOf(fn: () => unknown): TickwheelError {
  try {
    fn();
  } catch (err) {
    if (err instanceof TickwheelError) return err;
    throw err;
  }
  throw new Error('expected a TickwheelError');
}

const trigger = {
  jobId: 1,
  executorHandler: 'demoJobHandler',
  executorParams: '',
  executorBlockStrategy: 'SERIAL_EXECUTION',
  executorTimeout: 0,
  logId: 2,
  logDateTime: 1728027839906,
  glueType: 'BEAN',
  glueSource: '',
  glueUpdatetime: 1541254891000,
  broadcastIndex: 0,
  broadcastTotal: 1,
};

describe('TriggerParam', () => {
  it('accepts the body an XXL-JOB admin sends', () => {
    expect(parseTriggerParam(trigger)).toEqual(trigger);
  });

  it('fills XXL-JOB defaults for null and missing optional fields', () => {
    const p = parseTriggerParam({
      jobId: 3,
      logId: 9,
      executorHandler: 'h',
      executorParams: null,
      glueSource: null,
    });
    expect(p).toMatchObject({
      executorParams: '',
      executorBlockStrategy: 'SERIAL_EXECUTION',
      executorTimeout: 0,
      glueType: 'BEAN',
      glueSource: '',
      broadcastIndex: 0,
      broadcastTotal: 1,
    });
  });

  it('ignores fields it does not know', () => {
    expect(parseTriggerParam({ ...trigger, somethingNew: true })).not.toHaveProperty('somethingNew');
  });

  it('names the field and the reason for a wrong type', () => {
    const err = errorOf(() => parseTriggerParam({ ...trigger, logId: 'x' }));
    expect(err.code).toBe('TW_ERR_INVALID_FIELD');
    expect(err.field).toBe('logId');
    expect(err.message).toBe('logId: must be a number');
  });

  it('names a missing required field', () => {
    const { jobId: _omit, ...rest } = trigger;
    const err = errorOf(() => parseTriggerParam(rest));
    expect(err.field).toBe('jobId');
    expect(err.message).toBe('jobId: is required');
  });

  it('refuses an unknown block strategy, listing the known ones', () => {
    const err = errorOf(() => parseTriggerParam({ ...trigger, executorBlockStrategy: 'QUEUE' }));
    expect(err.field).toBe('executorBlockStrategy');
    expect(err.message).toContain('SERIAL_EXECUTION, DISCARD_LATER, COVER_EARLY');
  });

  it('refuses a negative timeout and a shard index outside the total', () => {
    expect(errorOf(() => parseTriggerParam({ ...trigger, executorTimeout: -1 })).field).toBe(
      'executorTimeout',
    );
    expect(errorOf(() => parseTriggerParam({ ...trigger, broadcastIndex: 2, broadcastTotal: 2 })).field).toBe(
      'broadcastIndex',
    );
  });

  it('refuses a body that is not an object', () => {
    const err = errorOf(() => parseTriggerParam([1, 2]));
    expect(err.message).toBe('TriggerParam must be an object');
  });
});

describe('TriggerParam workflow extension', () => {
  const workflow = {
    runId: 41,
    nodeKey: 'load',
    param: 'day=2024-10-04',
    upstream: {
      extract: { status: 'succeeded', output: { rows: 3 } },
      check: { status: 'failed', output: null },
    },
  };

  it('carries the workflow run, its param and the upstream outputs of a workflow node fire', () => {
    expect(parseTriggerParam({ ...trigger, workflow })).toStrictEqual({ ...trigger, workflow });
  });

  it('leaves workflow out when it is absent or null, as every XXL-JOB admin sends', () => {
    expect(parseTriggerParam(trigger)).not.toHaveProperty('workflow');
    expect(parseTriggerParam({ ...trigger, workflow: null })).not.toHaveProperty('workflow');
  });

  it('fills a missing param and upstream, and a missing upstream output, with null and {}', () => {
    expect(parseTriggerParam({ ...trigger, workflow: { runId: 1, nodeKey: 'A' } }).workflow).toStrictEqual({
      runId: 1,
      nodeKey: 'A',
      param: null,
      upstream: {},
    });
    const upstream = { A: { status: 'skipped' } };
    expect(
      parseTriggerParam({ ...trigger, workflow: { runId: 1, nodeKey: 'B', upstream } }).workflow?.upstream,
    ).toStrictEqual({ A: { status: 'skipped', output: null } });
  });

  it('drops fields of the workflow it does not know', () => {
    const p = parseTriggerParam({
      ...trigger,
      workflow: { ...workflow, later: 1, upstream: { A: { status: 'succeeded', output: 2, at: 3 } } },
    });
    expect(p.workflow).toStrictEqual({
      runId: 41,
      nodeKey: 'load',
      param: 'day=2024-10-04',
      upstream: { A: { status: 'succeeded', output: 2 } },
    });
  });

  it('names the field of a workflow that cannot be read', () => {
    expect(
      errorOf(() => parseTriggerParam({ ...trigger, workflow: { ...workflow, runId: 'x' } })).field,
    ).toBe('workflow.runId');
    expect(
      errorOf(() => parseTriggerParam({ ...trigger, workflow: { ...workflow, nodeKey: '9x' } })).field,
    ).toBe('workflow.nodeKey');
    const badKey = errorOf(() =>
      parseTriggerParam({ ...trigger, workflow: { ...workflow, upstream: { 'no key': { status: 'x' } } } }),
    );
    expect(badKey.field).toBe('workflow.upstream.no key');
    expect(badKey.message).toContain('must be a workflow node key');
    expect(
      errorOf(() =>
        parseTriggerParam({ ...trigger, workflow: { ...workflow, upstream: { A: { output: 1 } } } }),
      ).field,
    ).toBe('workflow.upstream.A.status');
    expect(errorOf(() => parseTriggerParam({ ...trigger, workflow: 'run 41' })).field).toBe('workflow');
  });
});

describe('log messages', () => {
  it('reads logDateTim (G2/G3) and logDateTime (G4)', () => {
    expect(parseLogParam({ logDateTim: 5, logId: 7, fromLineNum: 3 })).toEqual({
      logDateTim: 5,
      logId: 7,
      fromLineNum: 3,
    });
    expect(parseLogParam({ logDateTime: 6, logId: 7, fromLineNum: 1 }).logDateTim).toBe(6);
  });

  it('requires a log date under either spelling', () => {
    expect(errorOf(() => parseLogParam({ logId: 7, fromLineNum: 1 })).field).toBe('logDateTim');
  });

  it('encodes the log request in each generation spelling', () => {
    const p = { logDateTim: 5, logId: 7, fromLineNum: 1 };
    expect(encodeLogParam(p, 'G2')).toHaveProperty('logDateTim', 5);
    expect(encodeLogParam(p, 'G4')).toHaveProperty('logDateTime', 5);
    expect(encodeLogParam(p, 'G4')).not.toHaveProperty('logDateTim');
  });

  it('parses a LogResult', () => {
    expect(parseLogResult({ fromLineNum: 1, toLineNum: 2, logContent: 'a\nb\n', isEnd: false })).toEqual({
      fromLineNum: 1,
      toLineNum: 2,
      logContent: 'a\nb\n',
      isEnd: false,
    });
  });
});

describe('registry and kill', () => {
  it('refuses a blank registry field by name', () => {
    const err = errorOf(() =>
      parseRegistryParam({ registryGroup: 'EXECUTOR', registryKey: ' ', registryValue: 'x' }),
    );
    expect(err.field).toBe('registryKey');
    expect(err.message).toBe('registryKey: must not be blank');
  });

  it("a registry body without handlers is XXL-JOB's three fields; with handlers it adds the extension", () => {
    expect(executorRegistryParam('orders', 'http://h:1/')).toEqual({
      registryGroup: 'EXECUTOR',
      registryKey: 'orders',
      registryValue: 'http://h:1/',
    });
    expect(executorRegistryParam('orders', 'http://h:1/', ['a', 'b']).handlers).toEqual(['a', 'b']);
  });

  it('reads the handlers extension: absent or null is undefined, repeats are dropped, names kept as sent', () => {
    const base = { registryGroup: 'EXECUTOR', registryKey: 'orders', registryValue: 'http://h:1/' };
    expect(parseRegistryHandlers(base)).toBeUndefined();
    expect(parseRegistryHandlers({ ...base, handlers: null })).toBeUndefined();
    expect(parseRegistryHandlers({ ...base, handlers: [] })).toEqual([]);
    expect(parseRegistryHandlers({ ...base, handlers: ['b', ' a', 'b'] })).toEqual(['b', ' a']);
    expect(parseRegistryParam({ ...base, handlers: ['x'] })).toEqual(base);
  });

  it('refuses a handlers extension out of bounds, naming the field', () => {
    const tooMany = Array.from({ length: MAX_REGISTRY_HANDLERS + 1 }, (_, i) => `h${i}`);
    const cases: Array<[unknown, string]> = [
      ['sync', 'handlers: must be an array of handler names'],
      [
        tooMany,
        `handlers: must hold at most ${MAX_REGISTRY_HANDLERS} names, got ${MAX_REGISTRY_HANDLERS + 1}`,
      ],
      [['ok', 7], 'handlers[1]: must be a string'],
      [['ok', '  '], 'handlers[1]: must not be blank'],
      [['x'.repeat(MAX_HANDLER_NAME_LENGTH + 1)], 'handlers[0]: must be at most 255 characters'],
    ];
    for (const [handlers, message] of cases) {
      const err = errorOf(() => parseRegistryHandlers({ handlers }));
      expect(err.message).toBe(message);
      expect(err.field).toBe(message.slice(0, message.indexOf(':')));
    }
    expect(parseRegistryHandlers({ handlers: ['x'.repeat(MAX_HANDLER_NAME_LENGTH)] })).toHaveLength(1);
  });

  it('carries and reads the instance extension: absent or null is undefined, a bad id names the field', () => {
    const base = { registryGroup: 'EXECUTOR', registryKey: 'orders', registryValue: 'http://h:1/' };
    const id = '0c6f1a52-3b0e-4d7e-9a43-5f1f0e1c2b3d';
    expect(executorRegistryParam('orders', 'http://h:1/', [], id)).toEqual({ ...base, instance: id });
    expect(executorRegistryParam('orders', 'http://h:1/', [])).not.toHaveProperty('instance');
    expect(parseRegistryInstance(base)).toBeUndefined();
    expect(parseRegistryInstance({ ...base, instance: null })).toBeUndefined();
    expect(parseRegistryInstance({ ...base, instance: id })).toBe(id);
    expect(parseRegistryParam({ ...base, instance: id })).toEqual(base);
    for (const bad of ['', 'a b', 7, 'x'.repeat(MAX_INSTANCE_ID_LENGTH + 1), 'é']) {
      const err = errorOf(() => parseRegistryInstance({ ...base, instance: bad }));
      expect(err.field).toBe('instance');
      expect(err.message).toMatch(/^instance: must be 1 to 64 characters/);
    }
    expect(isInstanceId('x'.repeat(MAX_INSTANCE_ID_LENGTH))).toBe(true);
  });

  it('reads a kill body', () => {
    expect(parseKillParam({ jobId: 4 })).toEqual({ jobId: 4 });
    // Tickwheel's extension: the one run to stop.
    expect(parseKillParam({ jobId: 4, logId: 77 })).toEqual({ jobId: 4, logId: 77 });
    expect(parseKillParam({ jobId: 4, logId: null })).toEqual({ jobId: 4 });
    expect(errorOf(() => parseKillParam({ jobId: 1.5 })).message).toBe('jobId: must be an integer');
  });
});

describe('callbacks', () => {
  it('accepts a G2 array with logDateTim', () => {
    expect(parseCallbackBody([{ logId: 1, logDateTim: 10, handleCode: 200, handleMsg: null }])).toEqual([
      { logId: 1, logDateTim: 10, handleCode: 200, handleMsg: null },
    ]);
  });

  it('accepts a G4 {callbackList} with logDateTime and a missing handleMsg', () => {
    expect(parseCallbackBody({ callbackList: [{ logId: 2, logDateTime: 11, handleCode: 502 }] })).toEqual([
      { logId: 2, logDateTim: 11, handleCode: 502, handleMsg: null },
    ]);
  });

  it('accepts G1 executeResult items', () => {
    expect(
      parseCallbackBody([{ logId: 3, logDateTim: 12, executeResult: { code: 500, msg: 'boom' } }]),
    ).toEqual([{ logId: 3, logDateTim: 12, handleCode: 500, handleMsg: 'boom' }]);
  });

  it('names the bad item of a batch', () => {
    const err = errorOf(() =>
      parseCallbackBody({
        callbackList: [
          { logId: 1, handleCode: 200 },
          { logId: 'two', handleCode: 200 },
        ],
      }),
    );
    expect(err.field).toBe('callbackList[1].logId');
    expect(errorOf(() => parseCallbackBody([{ logId: 1 }])).field).toBe('[0].handleCode');
  });

  it('takes a code of a Java int, and names one past it (the stores keep codes in 32-bit columns)', () => {
    const edges = [2_147_483_647, -2_147_483_648];
    for (const handleCode of edges) {
      expect(parseCallbackBody([{ logId: 1, handleCode }])[0]!.handleCode).toBe(handleCode);
    }
    const past = errorOf(() =>
      parseCallbackBody([
        { logId: 1, handleCode: 200 },
        { logId: 2, handleCode: 2_147_483_648 },
      ]),
    );
    expect(past.field).toBe('[1].handleCode');
    expect(past.message).toMatch(/2147483647/);
    const below = errorOf(() =>
      parseCallbackBody({ callbackList: [{ logId: 3, executeResult: { code: -2_147_483_649, msg: null } }] }),
    );
    expect(below.field).toBe('callbackList[0].executeResult.code');
  });

  it('round-trips through each generation encoding', () => {
    const items = [{ logId: 9, logDateTim: 99, handleCode: 200, handleMsg: 'ok' }];
    for (const g of ['G2', 'G3', 'G4'] as const) {
      expect(parseCallbackBody(encodeCallbackBody(items, g))).toEqual(items);
    }
    expect(Array.isArray(encodeCallbackBody(items, 'G2'))).toBe(true);
    expect(encodeCallbackBody(items, 'G4')).toHaveProperty('callbackList');
  });

  it('carries an output of any JSON value through each generation, and leaves it out when absent', () => {
    const outputs: unknown[] = [{ rows: 3, files: ['a', 'b'] }, [1, 2], 'text', 0, false, null];
    for (const g of ['G2', 'G3', 'G4'] as const) {
      for (const output of outputs) {
        const items = [{ logId: 9, logDateTim: 99, handleCode: 200, handleMsg: 'ok', output }];
        expect(parseCallbackBody(encodeCallbackBody(items, g))).toStrictEqual(items);
      }
      const none = [{ logId: 9, logDateTim: 99, handleCode: 200, handleMsg: 'ok' }];
      expect(JSON.stringify(encodeCallbackBody(none, g))).not.toContain('output');
      expect(parseCallbackBody(encodeCallbackBody(none, g))[0]).not.toHaveProperty('output');
    }
  });

  it('reads an output on G1 executeResult items too', () => {
    expect(
      parseCallbackBody([
        { logId: 3, logDateTim: 12, executeResult: { code: 200, msg: null }, output: { n: 1 } },
      ]),
    ).toStrictEqual([{ logId: 3, logDateTim: 12, handleCode: 200, handleMsg: null, output: { n: 1 } }]);
  });

  it('encodes a result with an output after the XXL-JOB fields, which XXL-JOB admins ignore', () => {
    const items = [{ logId: 1, logDateTim: 2, handleCode: 500, handleMsg: 'x', output: { why: 'disk' } }];
    expect(JSON.stringify(encodeCallbackBody(items, 'G2'))).toBe(
      '[{"logId":1,"logDateTim":2,"handleCode":500,"handleMsg":"x","output":{"why":"disk"}}]',
    );
    expect(JSON.stringify(encodeCallbackBody(items, 'G4'))).toBe(
      '{"callbackList":[{"logId":1,"logDateTime":2,"handleCode":500,"handleMsg":"x","output":{"why":"disk"}}]}',
    );
  });

  it('caps a handler message at 50,000 characters', () => {
    expect(capHandleMsg('x'.repeat(60_000))?.length).toBe(50_003);
    expect(capHandleMsg(null)).toBeNull();
  });
});

describe('error wording kept from the zod era', () => {
  it('names an integer beyond the safe range by its bound', () => {
    expect(errorOf(() => parseKillParam({ jobId: 2 ** 60 })).message).toBe(
      'jobId: must be <= 9007199254740991',
    );
    expect(errorOf(() => parseKillParam({ jobId: -(2 ** 60) })).message).toBe(
      'jobId: must be >= -9007199254740991',
    );
    expect(errorOf(() => parseKillParam({ jobId: 1, logId: -1 })).message).toBe('logId: must be >= 0');
    expect(errorOf(() => parseKillParam({ jobId: null })).message).toBe('jobId: must be a number');
  });

  it('reports the first bad field in the order of the message fields, not of the body', () => {
    const { jobId: _omit, ...rest } = trigger;
    expect(errorOf(() => parseTriggerParam({ ...rest, logId: 'x', executorTimeout: -1 })).message).toBe(
      'jobId: is required',
    );
    expect(errorOf(() => parseTriggerParam({ ...trigger, broadcastIndex: 3, logId: 'x' })).message).toBe(
      'logId: must be a number',
    );
  });

  it('refuses a callback body of neither shape as a whole', () => {
    for (const body of ['x', {}, { callbackList: 5 }, null]) {
      const err = errorOf(() => parseCallbackBody(body));
      expect(err.message).toBe('callback body (an array or {callbackList}) Invalid input');
      expect(err.field).toBeUndefined();
    }
    expect(errorOf(() => parseCallbackBody([null])).message).toBe('[0]: must be an object');
  });

  it('names an upstream that is no record, and passes over a __proto__ key', () => {
    const base = { ...trigger, workflow: { runId: 1, nodeKey: 'B' } };
    expect(
      errorOf(() => parseTriggerParam({ ...base, workflow: { ...base.workflow, upstream: [] } })).message,
    ).toBe('workflow.upstream: must be a record');
    const body = JSON.parse(
      `{"jobId":7,"logId":1,"workflow":{"runId":1,"nodeKey":"B","upstream":{"__proto__":5,"A":{"status":"failed"}}}}`,
    );
    const upstream = parseTriggerParam(body).workflow?.upstream;
    expect(upstream).toStrictEqual({ A: { status: 'failed', output: null } });
    expect(Object.getPrototypeOf(upstream)).toBe(Object.prototype);
  });

  it('trims registry fields before checking them', () => {
    const base = {
      registryGroup: ' EXECUTOR ',
      registryKey: ' orders ',
      registryValue: ' http://10.0.0.1:9999/ ',
    };
    expect(parseRegistryParam(base)).toEqual({
      registryGroup: 'EXECUTOR',
      registryKey: 'orders',
      registryValue: 'http://10.0.0.1:9999/',
    });
    expect(errorOf(() => parseRegistryParam({ ...base, registryKey: ` ${'x'.repeat(65)} ` })).message).toBe(
      'registryKey: must be at most 64 characters',
    );
    expect(errorOf(() => parseRegistryParam({ ...base, registryGroup: 'EXEC UTOR' })).message).toBe(
      'registryGroup: must hold only letters, digits, _ and -',
    );
    expect(errorOf(() => parseRegistryParam({ ...base, registryKey: 'a\u200bb' })).message).toBe(
      'registryKey: must not contain whitespace, control or invisible characters',
    );
    expect(errorOf(() => parseRegistryParam({ ...base, registryValue: 'h:1' })).field).toBe('registryValue');
  });
});

describe('parseWith', () => {
  it('checks a body against a TypeBox schema, naming the first bad field with the prefix', () => {
    const schema = Type.Object({ n: Type.Integer(), list: Type.Array(Type.String()) });
    const body = { n: 1, list: ['a'] };
    expect(parseWith(schema, body)).toBe(body);
    const err = errorOf(() =>
      parseWith(schema, { n: 1, list: ['a', 2] }, { prefix: 'x', code: 'TW_ERR_MISSING_FIELD' }),
    );
    expect(err.message).toBe('x.list[1]: must be a string');
    expect(err.code).toBe('TW_ERR_MISSING_FIELD');
    expect(errorOf(() => parseWith(schema, 'n', { what: 'Thing' })).message).toBe('Thing must be an object');
  });
});

describe('ReturnT', () => {
  it('answers with the payload under both content and data', () => {
    expect(returnSuccess({ a: 1 })).toEqual({ code: 200, msg: 'Success', content: { a: 1 }, data: { a: 1 } });
    expect(returnFail('no')).toEqual({ code: 500, msg: 'no', content: null, data: null });
  });

  it('reads any generation answer, ignoring unknown keys', () => {
    expect(parseReturnT({ code: 200 })).toEqual({ code: 200, msg: null, content: null, data: null });
    expect(parseReturnT({ code: 200, msg: 'Success', data: 5, extra: 1 }).content).toBe(5);
    expect(parseReturnT({ code: 500, msg: 'x', content: 'c' }).data).toBe('c');
    expect(parseReturnT({ code: -2_147_483_648 }).code).toBe(-2_147_483_648);
    expect(errorOf(() => parseReturnT({ code: 2_147_483_648 })).field).toBe('code');
    expect(
      isTickwheelError(
        errorOf(() => parseReturnT('<html>')),
        'TW_ERR_INVALID_FIELD',
      ),
    ).toBe(true);
  });
});

describe('enums and wire constants', () => {
  it('keeps XXL-JOB names', () => {
    expect(ROUTE_STRATEGIES).toHaveLength(10);
    expect(BLOCK_STRATEGIES).toEqual(['SERIAL_EXECUTION', 'DISCARD_LATER', 'COVER_EARLY']);
    expect(TRIGGER_TYPES).toEqual(['CRON', 'MANUAL', 'API', 'RETRY', 'PARENT', 'MISFIRE', 'WORKFLOW']);
    expect(SCRIPT_GLUE.GLUE_PYTHON2.command).toBe('python');
  });

  it('spells the messages peers match on', () => {
    expect(WireMessages.discardLater).toBe('block strategy effect：Discard Later');
    expect(WireMessages.uriNotFound('/run/')).toBe('invalid request, uri-mapping(/run/) not found.');
  });

  it('joins call URLs with exactly one slash', () => {
    expect(callUrl('http://h:1', 'run')).toBe('http://h:1/run');
    expect(callUrl('http://h:1/', 'run')).toBe('http://h:1/run');
    expect(callUrl('http://h/ctx/', 'api/registry')).toBe('http://h/ctx/api/registry');
  });
});
