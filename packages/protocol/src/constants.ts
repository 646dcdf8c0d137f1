/** Wire constants of PROTOCOL.md that both sides need, spelled byte-for-byte. */
export const ACCESS_TOKEN_HEADER = 'XXL-JOB-ACCESS-TOKEN';
export const APP_NAME_HEADER = 'XXL-JOB-APPNAME';
export const JSON_CONTENT_TYPE = 'application/json;charset=UTF-8';
/** XXL-JOB's request body limit. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;
/** Executor heartbeat interval and the silence after which an address counts as dead. */
export const BEAT_INTERVAL_MS = 30_000;
export const DEAD_TIMEOUT_MS = 90_000;
/** Default timeout of one call in either direction. */
export const DEFAULT_CALL_TIMEOUT_MS = 3_000;

/**
 * Tickwheel's optional batched `run` (not in XXL-JOB): `POST <executor>/runBatch` with a JSON
 * array of TriggerParam, answered by a ReturnT whose payload is one `{code, msg}` per trigger, in
 * order, each what `run` would have answered for it alone. A Tickwheel executor announces it on
 * every answer with the header below, whose value is the most triggers it takes in one batch; a
 * server sends batches only to an address that announced it and otherwise calls `run`.
 */
export const RUN_BATCH_CALL = 'runBatch';
export const RUN_BATCH_HEADER = 'Tickwheel-Run-Batch';
/** The most triggers a Tickwheel executor takes in one `runBatch`. */
export const MAX_RUN_BATCH = 1_000;

/**
 * Tickwheel's optional kill of one run (not in XXL-JOB): a Tickwheel executor announces on every
 * answer the header below with the value `logId`, meaning its `kill` takes an optional `logId`
 * beside `jobId` and then stops only that run (running or queued), leaving the job's other runs
 * alone. A server sends `logId` only to an address that announced it: an XXL-JOB executor ignores
 * the field and stops the job's running run and drops its whole queue.
 */
export const KILL_RUN_HEADER = 'Tickwheel-Kill';
export const KILL_RUN_BY_LOG_ID = 'logId';

/**
 * Tickwheel's executor instance (not in XXL-JOB): a Tickwheel executor makes a new instance id
 * each time it starts and announces it on every answer with the header below, and sends it in
 * each registration (the `instance` field of `api/registry`). A server stores the instance that
 * accepted each run; when a registration at the same address carries another instance, the
 * process that had the run is gone, and the run is failed at once instead of waiting for it.
 * XXL-JOB servers ignore both; XXL-JOB executors send neither.
 */
export const INSTANCE_HEADER = 'Tickwheel-Instance';
/**
 * Tickwheel's callback sender (not in XXL-JOB): a Tickwheel executor sends its registered address
 * in this header with each `api/callback`, and the server then takes a result only for a record
 * it sent to that address, so one executor of an app cannot finish another's runs. XXL-JOB
 * executors send none, and their results are bound to their app only.
 */
export const CALLBACK_ADDRESS_HEADER = 'Tickwheel-Address';
/** The longest instance id a server takes (a UUID is 36 characters). */
export const MAX_INSTANCE_ID_LENGTH = 64;
const INSTANCE_ID = /^[A-Za-z0-9._:-]+$/;

/** True for a well-formed instance id: 1–64 characters of letters, digits, `.`, `_`, `:`, `-`. */
export function isInstanceId(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_INSTANCE_ID_LENGTH && INSTANCE_ID.test(value);
}

/** Messages peers match on; keep the spelling (including XXL-JOB's full-width colon). */
export const WireMessages = {
  wrongToken: 'The access token is wrong.',
  /** Tickwheel's: a valid token used for an app it does not belong to (per-app executor tokens). */
  wrongAppToken: (appName: string) => `The access token is wrong for app '${appName}'.`,
  methodNotSupported: 'invalid request, HttpMethod not support.',
  uriNotFound: (path: string) => `invalid request, uri-mapping(${path}) not found.`,
  illegalArgument: 'Illegal Argument.',
  /** XXL-JOB 3.5's answer to a call without both the token and the `XXL-JOB-APPNAME` header. */
  appNameMissing: 'invalid request, accessToken or appname is empty.',
  handlerNotFound: (name: string) => `job handler [${name}] not found.`,
  repeatTrigger: (logId: number) => `repeat trigger job, logId:${logId}`,
  discardLater: 'block strategy effect：Discard Later',
  coverEarly: 'block strategy effect：Cover Early [job running, killed]',
  glueTypeInvalid: (glueType: string) => `glueType[${glueType}] is not valid.`,
  threadAlreadyKilled: 'job thread already killed.',
  killRunning: 'scheduling center kill job. [job running, killed]',
  killQueued: 'scheduling center kill job. [job not executed, in the job queue, killed.]',
  timeout: 'job execute timeout ',
  logFileNotExists: 'readLog fail, logFile not exists',
} as const;

/** Joins a base address and a call name with exactly one slash (`http://h:1/` + `run`). */
export function callUrl(baseAddress: string, call: string): string {
  const base = baseAddress.endsWith('/') ? baseAddress : `${baseAddress}/`;
  return base + (call.startsWith('/') ? call.slice(1) : call);
}
