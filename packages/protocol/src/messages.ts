/**
 * The server⇄executor wire messages of PROTOCOL.md, with exact field names, and parsers that
 * accept every XXL-JOB generation (G1–G4) and normalise them to one shape.
 */
import { type Static, type TSchema, Type } from 'typebox';
import { isInstanceId, MAX_INSTANCE_ID_LENGTH } from './constants.js';
import {
  BLOCK_STRATEGIES,
  type BlockStrategy,
  HANDLE_CODES,
  type ProtocolGeneration,
  REGISTRY_GROUP_EXECUTOR,
} from './enums.js';
import { TickwheelError } from './errors.js';
import { executorAddressProblem } from './executor-address.js';
import { invalid, validatorOf } from './validation.js';
import { WORKFLOW_LIMITS } from './workflows.js';

/** A safe integer of at least `minimum`. */
const int = (minimum = Number.MIN_SAFE_INTEGER) =>
  Type.Integer({ minimum, maximum: Number.MAX_SAFE_INTEGER });
const long = () => int(0);
/**
 * A Java `int` (XXL-JOB's codes are): the stores keep result and trigger codes in 32-bit columns,
 * and a code past them would fail the whole batch of results or marks it went into.
 */
const int32 = () => Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 });
/** A field that may be missing or null. */
const nullish = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

/**
 * A parser for `schema`: the body as the schema's type when TypeBox's compiled check takes it,
 * else a TickwheelError naming the first bad field (`what` names a body that is bad as a whole).
 */
function parser<T extends TSchema>(schema: T, what?: string) {
  const validator = validatorOf(schema);
  return (input: unknown, prefix?: string): Static<T> => {
    if (validator.Check(input)) return input as Static<T>;
    throw invalid(schema, input, { what, prefix });
  };
}

/** XXL-JOB caps a handler's message at 50,000 characters. */
export const MAX_HANDLE_MSG_LENGTH = 50_000;

// ---------------------------------------------------------------- TriggerParam

/** What the server sends in `run` (G4: `trigger`): one run of one job. */
export interface TriggerParam {
  jobId: number;
  executorHandler: string;
  executorParams: string;
  executorBlockStrategy: BlockStrategy;
  /** Seconds; 0 = none. */
  executorTimeout: number;
  logId: number;
  /** Epoch ms of the fire; selects the log file's date folder. */
  logDateTime: number;
  glueType: string;
  glueSource: string;
  glueUpdatetime: number;
  broadcastIndex: number;
  broadcastTotal: number;
  /**
   * Tickwheel's optional extension: the workflow run this fire is a node of, and what its upstream
   * nodes ended with. Sent only for a workflow node's fire; absent otherwise (XXL-JOB executors
   * ignore it). See {@link WorkflowRunParam}.
   */
  workflow?: WorkflowRunParam;
}

/** The `workflow` extension of a TriggerParam. */
export interface WorkflowRunParam {
  runId: number;
  /** The key of the node this fire runs. */
  nodeKey: string;
  /** The workflow run's param; null when it has none. */
  param: string | null;
  /**
   * The nodes with an edge into this one, by key: their status and output (null when they
   * produced none).
   */
  upstream: Record<string, WorkflowUpstreamNode>;
}

/** One upstream node as a workflow node's fire sees it. */
export interface WorkflowUpstreamNode {
  status: string;
  output: unknown;
}

const NODE_KEY_RULE = 'must be a workflow node key (a letter, then up to 63 letters, digits, _ and -)';

const NODE_KEY = WORKFLOW_LIMITS.keyPattern.source;

const triggerParamSchema = Type.Object({
  jobId: int(),
  executorHandler: nullish(Type.String()),
  executorParams: nullish(Type.String()),
  executorBlockStrategy: nullish(Type.Enum(BLOCK_STRATEGIES)),
  executorTimeout: nullish(int(0)),
  logId: long(),
  logDateTime: nullish(long()),
  glueType: nullish(Type.String()),
  glueSource: nullish(Type.String()),
  glueUpdatetime: nullish(long()),
  broadcastIndex: nullish(int(0)),
  broadcastTotal: nullish(int(1)),
  workflow: nullish(
    Type.Object({
      runId: long(),
      nodeKey: Type.String({ pattern: NODE_KEY, patternReason: NODE_KEY_RULE }),
      param: nullish(Type.String()),
      upstream: nullish(
        Type.Record(
          Type.String({ pattern: NODE_KEY }),
          Type.Object({ status: Type.String(), output: Type.Optional(Type.Unknown()) }),
          { additionalProperties: false, keyReason: NODE_KEY_RULE },
        ),
      ),
    }),
  ),
});
const checkTriggerParam = parser(triggerParamSchema, 'TriggerParam');

/**
 * Validates a `run`/`trigger` body. Missing optional fields take XXL-JOB's defaults; a `workflow`
 * that is absent or null is left out, one that is sent has its `param` null and its `upstream`
 * `{}` when missing, and each upstream node's `output` null when missing.
 */
export function parseTriggerParam(body: unknown): TriggerParam {
  const b = checkTriggerParam(withoutProtoUpstream(body));
  const p: TriggerParam = {
    jobId: b.jobId,
    executorHandler: b.executorHandler ?? '',
    executorParams: b.executorParams ?? '',
    executorBlockStrategy: b.executorBlockStrategy ?? 'SERIAL_EXECUTION',
    executorTimeout: b.executorTimeout ?? 0,
    logId: b.logId,
    logDateTime: b.logDateTime ?? 0,
    glueType: b.glueType ?? 'BEAN',
    glueSource: b.glueSource ?? '',
    glueUpdatetime: b.glueUpdatetime ?? 0,
    broadcastIndex: b.broadcastIndex ?? 0,
    broadcastTotal: b.broadcastTotal ?? 1,
  };
  if (p.broadcastIndex >= p.broadcastTotal) {
    throw new TickwheelError(
      'TW_ERR_INVALID_FIELD',
      `broadcastIndex: must be < broadcastTotal (${p.broadcastTotal})`,
      'broadcastIndex',
    );
  }
  const w = b.workflow;
  if (w == null) return p;
  const upstream: Record<string, WorkflowUpstreamNode> = {};
  if (w.upstream != null) {
    // Every key is a node key (the check refused others), so none is `__proto__`.
    for (const [key, node] of Object.entries(w.upstream)) {
      upstream[key] = { status: node.status, output: node.output ?? null };
    }
  }
  p.workflow = { runId: w.runId, nodeKey: w.nodeKey, param: w.param ?? null, upstream };
  return p;
}

/**
 * The body without a `__proto__` key in its workflow's upstream (JSON.parse makes one an own
 * key): such a key is passed over, as a key no node can have, rather than refused.
 */
function withoutProtoUpstream(body: unknown): unknown {
  const workflow = isObject(body) ? body.workflow : undefined;
  const upstream = isObject(workflow) ? workflow.upstream : undefined;
  if (!isObject(upstream) || !Object.hasOwn(upstream, '__proto__')) return body;
  const kept = Object.fromEntries(Object.entries(upstream).filter(([key]) => key !== '__proto__'));
  return { ...(body as object), workflow: { ...(workflow as object), upstream: kept } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

// ---------------------------------------------------------------- idleBeat / kill

/** Body of `idleBeat`. */
export interface JobIdParam {
  jobId: number;
}
export type IdleBeatParam = JobIdParam;

/**
 * Body of `kill`. `logId` is Tickwheel's optional extension (KILL_RUN_HEADER): an executor that
 * announces it stops only that run; XXL-JOB executors ignore it and stop the job's lane.
 */
export interface KillParam extends JobIdParam {
  logId?: number;
}

const checkIdleBeatParam = parser(Type.Object({ jobId: int() }), 'IdleBeatParam');
const checkKillParam = parser(Type.Object({ jobId: int(), logId: nullish(long()) }), 'KillParam');

export function parseIdleBeatParam(body: unknown): IdleBeatParam {
  return { jobId: checkIdleBeatParam(body).jobId };
}

export function parseKillParam(body: unknown): KillParam {
  const p = checkKillParam(body);
  return p.logId == null ? { jobId: p.jobId } : { jobId: p.jobId, logId: p.logId };
}

// ---------------------------------------------------------------- log

/** Body of `log`, normalised: G2/G3 send `logDateTim`, G4 `logDateTime`. */
export interface LogParam {
  logDateTim: number;
  logId: number;
  fromLineNum: number;
}

const checkLogParam = parser(
  Type.Object({
    logDateTim: nullish(long()),
    logDateTime: nullish(long()),
    logId: long(),
    fromLineNum: nullish(int(0)),
  }),
  'LogParam',
);

export function parseLogParam(body: unknown): LogParam {
  const p = checkLogParam(body);
  const logDateTim = p.logDateTim ?? p.logDateTime;
  if (logDateTim == null) {
    throw new TickwheelError('TW_ERR_MISSING_FIELD', 'logDateTim: is required', 'logDateTim');
  }
  // Line numbers are 1-based; XXL-JOB callers may send 0 for "from the start".
  return { logDateTim, logId: p.logId, fromLineNum: Math.max(1, p.fromLineNum ?? 1) };
}

/** Encodes a log request in the given generation's spelling. */
export function encodeLogParam(p: LogParam, generation: ProtocolGeneration): Record<string, number> {
  return generation === 'G4'
    ? { logDateTime: p.logDateTim, logId: p.logId, fromLineNum: p.fromLineNum }
    : { logDateTim: p.logDateTim, logId: p.logId, fromLineNum: p.fromLineNum };
}

/** Answer of `log`: lines `fromLineNum..toLineNum` (1-based) of the run's log. */
export interface LogResult {
  fromLineNum: number;
  toLineNum: number;
  logContent: string;
  isEnd: boolean;
}

const checkLogResult = parser(
  Type.Object({
    fromLineNum: int(),
    toLineNum: int(),
    logContent: nullish(Type.String()),
    isEnd: nullish(Type.Boolean()),
  }),
  'LogResult',
);

export function parseLogResult(content: unknown): LogResult {
  const r = checkLogResult(content);
  return {
    fromLineNum: r.fromLineNum,
    toLineNum: r.toLineNum,
    logContent: r.logContent ?? '',
    isEnd: r.isEnd ?? false,
  };
}

// ---------------------------------------------------------------- registry

/** Body of `api/registry` and `api/registryRemove`. */
export interface RegistryParam {
  registryGroup: string;
  registryKey: string;
  registryValue: string;
  /**
   * Tickwheel's optional extension of `api/registry`: the handler names the executor has
   * registered, so a server can offer them when a job is written. XXL-JOB admins ignore it;
   * XXL-JOB executors never send it. See `parseRegistryHandlers` for its bounds.
   */
  handlers?: string[];
  /**
   * Tickwheel's optional extension of `api/registry`: the id of this run of the executor process,
   * new at each start (INSTANCE_HEADER). A server that sees another instance at the same address
   * fails the runs the previous one had. XXL-JOB admins ignore it; XXL-JOB executors never send
   * it. See `parseRegistryInstance`.
   */
  instance?: string;
}

/** The most handler names one registration carries (the `handlers` extension). */
export const MAX_REGISTRY_HANDLERS = 1_000;
/** The longest handler name the `handlers` extension carries (a job's handler field holds 255). */
export const MAX_HANDLER_NAME_LENGTH = 255;

/** The longest registry group (its column holds 50; executors send `EXECUTOR`). */
export const MAX_REGISTRY_GROUP_LENGTH = 50;
/** The longest app name an executor registers under (an app's name holds 64 characters). */
export const MAX_REGISTRY_KEY_LENGTH = 64;

const REGISTRY_GROUP = /^[A-Za-z0-9_-]+$/;
/**
 * No whitespace (an app name has none) and nothing that would not show as itself in a log or the
 * console: control and format characters (bidirectional overrides, zero-width ones), line and
 * paragraph separators, and lone surrogates, which PostgreSQL and MariaDB refuse to store.
 */
const REGISTRY_KEY = /^[^\s\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]+$/u;

/** Checked trimmed: see `parseRegistryParam`. */
const checkRegistryParam = parser(
  Type.Object({
    registryGroup: Type.String({
      minLength: 1,
      maxLength: MAX_REGISTRY_GROUP_LENGTH,
      pattern: REGISTRY_GROUP.source,
      patternReason: 'must hold only letters, digits, _ and -',
    }),
    registryKey: Type.String({
      minLength: 1,
      maxLength: MAX_REGISTRY_KEY_LENGTH,
      pattern: REGISTRY_KEY.source,
      patternReason: 'must not contain whitespace, control or invisible characters',
    }),
    registryValue: Type.String({ minLength: 1 }),
  }),
  'RegistryParam',
);

/**
 * Validates a registry body: a group of letters, digits, `_` and `-` (executors send
 * `EXECUTOR`), an app name of at most 64 characters without whitespace or control characters,
 * and an executor address as `executorAddressProblem` takes it (`http://<ip>:<port>/`, the
 * trailing slash optional). Fields are trimmed. Anything else is refused (the server answers
 * XXL-JOB's `Illegal Argument.` for it; the thrown error still names the field and the reason).
 */
export function parseRegistryParam(body: unknown): RegistryParam {
  const p = checkRegistryParam(
    isObject(body) && !Array.isArray(body)
      ? {
          registryGroup: trimmed(body.registryGroup),
          registryKey: trimmed(body.registryKey),
          registryValue: trimmed(body.registryValue),
        }
      : body,
  );
  const problem = executorAddressProblem(p.registryValue);
  if (problem !== undefined) {
    throw new TickwheelError('TW_ERR_INVALID_FIELD', `registryValue: ${problem}`, 'registryValue');
  }
  return { registryGroup: p.registryGroup, registryKey: p.registryKey, registryValue: p.registryValue };
}

function trimmed(value: unknown): unknown {
  return typeof value === 'string' ? value.trim() : value;
}

/**
 * The `handlers` extension of a registry body: undefined when absent or null (every XXL-JOB
 * executor), else the names as sent, repeats dropped. Throws `TW_ERR_INVALID_FIELD` naming the
 * field (`handlers`, `handlers[3]`) when it is not an array of at most `MAX_REGISTRY_HANDLERS`
 * non-blank strings of at most `MAX_HANDLER_NAME_LENGTH` characters. Names are not trimmed: an
 * executor matches `executorHandler` exactly.
 */
export function parseRegistryHandlers(body: unknown): string[] | undefined {
  const sent =
    body !== null && typeof body === 'object' ? (body as { handlers?: unknown }).handlers : undefined;
  if (sent == null) return undefined;
  if (!Array.isArray(sent)) throw invalidHandlers('handlers', 'must be an array of handler names');
  if (sent.length > MAX_REGISTRY_HANDLERS) {
    throw invalidHandlers('handlers', `must hold at most ${MAX_REGISTRY_HANDLERS} names, got ${sent.length}`);
  }
  sent.forEach((name: unknown, i) => {
    if (typeof name !== 'string') throw invalidHandlers(`handlers[${i}]`, 'must be a string');
    if (name.trim() === '') throw invalidHandlers(`handlers[${i}]`, 'must not be blank');
    if (name.length > MAX_HANDLER_NAME_LENGTH) {
      throw invalidHandlers(`handlers[${i}]`, `must be at most ${MAX_HANDLER_NAME_LENGTH} characters`);
    }
  });
  return [...new Set(sent as string[])];
}

/**
 * The `instance` extension of a registry body: undefined when absent or null (every XXL-JOB
 * executor), else the id as sent. Throws `TW_ERR_INVALID_FIELD` naming `instance` when it is not
 * 1–64 characters of letters, digits, `.`, `_`, `:` and `-` (`isInstanceId`).
 */
export function parseRegistryInstance(body: unknown): string | undefined {
  const sent =
    body !== null && typeof body === 'object' ? (body as { instance?: unknown }).instance : undefined;
  if (sent == null) return undefined;
  if (!isInstanceId(sent)) {
    throw new TickwheelError(
      'TW_ERR_INVALID_FIELD',
      `instance: must be 1 to ${MAX_INSTANCE_ID_LENGTH} characters of letters, digits, '.', '_', ':' and '-'`,
      'instance',
    );
  }
  return sent;
}

function invalidHandlers(field: string, reason: string): TickwheelError {
  return new TickwheelError('TW_ERR_INVALID_FIELD', `${field}: ${reason}`, field);
}

/**
 * A registry body. `handlers` and `instance` (Tickwheel's extensions) are left out when there are
 * none, so a body without them is byte-for-byte XXL-JOB's.
 */
export function executorRegistryParam(
  appName: string,
  address: string,
  handlers: readonly string[] = [],
  instance?: string,
): RegistryParam {
  const param: RegistryParam = {
    registryGroup: REGISTRY_GROUP_EXECUTOR,
    registryKey: appName,
    registryValue: address,
  };
  if (handlers.length > 0) param.handlers = [...handlers];
  if (instance !== undefined) param.instance = instance;
  return param;
}

// ---------------------------------------------------------------- callback

/** One run's result, normalised (G1 `executeResult` and G4 `logDateTime` folded in). */
export interface HandleCallbackParam {
  logId: number;
  logDateTim: number;
  handleCode: number;
  handleMsg: string | null;
  /**
   * Tickwheel's optional extension: the run's output (any JSON value) for the workflow nodes
   * downstream of it; absent when the run produced none. XXL-JOB admins ignore it.
   */
  output?: unknown;
}

const checkCallbackItem = parser(
  Type.Object({
    logId: long(),
    logDateTim: nullish(long()),
    logDateTime: nullish(long()),
    handleCode: nullish(int32()),
    handleMsg: nullish(Type.String()),
    executeResult: nullish(Type.Object({ code: int32(), msg: nullish(Type.String()) })),
    output: Type.Optional(Type.Unknown()),
  }),
);

const checkCallbackBody = parser(
  Type.Union([Type.Array(Type.Unknown()), Type.Object({ callbackList: Type.Array(Type.Unknown()) })]),
  'callback body (an array or {callbackList})',
);

/**
 * Validates a callback body: an array (G1–G3) or `{callbackList: [...]}` (G4), each item with
 * `handleCode/handleMsg` or G1's `executeResult: {code, msg}`, and `logDateTim` or `logDateTime`.
 * An item's `output` (Tickwheel's extension) is carried as sent, and left out when absent.
 */
export function parseCallbackBody(body: unknown): HandleCallbackParam[] {
  const outer = checkCallbackBody(body);
  const items = Array.isArray(outer) ? outer : outer.callbackList;
  const prefix = Array.isArray(outer) ? '' : 'callbackList';
  return items.map((raw, i) => {
    const item = checkCallbackItem(raw, `${prefix}[${i}]`);
    const handleCode = item.handleCode ?? item.executeResult?.code;
    if (handleCode == null) {
      throw new TickwheelError(
        'TW_ERR_MISSING_FIELD',
        `${prefix}[${i}].handleCode: is required`,
        `${prefix}[${i}].handleCode`,
      );
    }
    const handleMsg = item.handleMsg ?? item.executeResult?.msg ?? null;
    const param: HandleCallbackParam = {
      logId: item.logId,
      logDateTim: item.logDateTim ?? item.logDateTime ?? 0,
      handleCode,
      handleMsg,
    };
    if (item.output !== undefined) param.output = item.output;
    return param;
  });
}

/**
 * Encodes results for `api/callback` in the given generation's shape. `output` is written only
 * for a result that has one, so a body without outputs is byte-for-byte XXL-JOB's.
 */
export function encodeCallbackBody(
  items: readonly HandleCallbackParam[],
  generation: ProtocolGeneration,
): unknown {
  if (generation === 'G4') {
    return {
      callbackList: items.map((c) =>
        withOutput(
          { logId: c.logId, logDateTime: c.logDateTim, handleCode: c.handleCode, handleMsg: c.handleMsg },
          c,
        ),
      ),
    };
  }
  return items.map((c) =>
    withOutput(
      { logId: c.logId, logDateTim: c.logDateTim, handleCode: c.handleCode, handleMsg: c.handleMsg },
      c,
    ),
  );
}

function withOutput(encoded: Record<string, unknown>, c: HandleCallbackParam): Record<string, unknown> {
  if (c.output !== undefined) encoded.output = c.output;
  return encoded;
}

/** True for the handle codes Tickwheel emits (200, 500, 502). */
export function isKnownHandleCode(code: number): boolean {
  return (HANDLE_CODES as readonly number[]).includes(code);
}

// ---------------------------------------------------------------- ReturnT

/** The answer envelope of every call. Tickwheel fills both `content` and `data`. */
export interface ReturnT<T = unknown> {
  code: number;
  msg: string | null;
  content: T | null;
  data: T | null;
}

/**
 * A success answer. G3/G4 peers expect `msg: "Success"`; G2 peers ignore it, so one shape
 * serves all generations.
 */
export function returnSuccess<T>(content: T | null = null): ReturnT<T> {
  return { code: 200, msg: 'Success', content, data: content };
}

export function returnFail(msg: string): ReturnT<null> {
  return { code: 500, msg, content: null, data: null };
}

const checkReturnT = parser(
  Type.Object({
    code: int32(),
    msg: nullish(Type.String()),
    content: Type.Optional(Type.Unknown()),
    data: Type.Optional(Type.Unknown()),
  }),
  'ReturnT',
);

/**
 * Reads an answer from any generation: only `code` and `msg` matter, the payload is taken
 * from `content` or `data`, unknown keys are ignored.
 */
export function parseReturnT(body: unknown): ReturnT<unknown> {
  const r = checkReturnT(body);
  const payload = r.content ?? r.data ?? null;
  return { code: r.code, msg: r.msg ?? null, content: payload, data: payload };
}

/** Caps a handler's message as XXL-JOB does. */
export function capHandleMsg(msg: string | null | undefined): string | null {
  if (msg == null) return null;
  return msg.length > MAX_HANDLE_MSG_LENGTH ? `${msg.slice(0, MAX_HANDLE_MSG_LENGTH)}...` : msg;
}
