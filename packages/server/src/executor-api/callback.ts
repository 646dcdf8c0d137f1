/**
 * `api/callback`: run results from executors, in any XXL-JOB generation (an array or
 * `{callbackList}`, `handleCode` or G1's `executeResult`, `logDateTim` or `logDateTime`).
 *
 * The answer is code 200 once the results are stored, so an executor keeps (and re-sends) a
 * batch until it is. Like XXL-JOB's admin, the server then answers 200 for the batch whatever
 * its items were: an unknown logId or a record already finished is ignored, and an item that
 * cannot be read is logged and skipped (re-sending it could never succeed, and refusing the
 * batch would hold the good results back forever).
 */
import {
  capHandleMsg,
  type HandleCallbackParam,
  HandleCode,
  parseCallbackBody,
  type ReturnT,
  returnFail,
  returnSuccess,
  WireMessages,
  WORKFLOW_LIMITS,
} from '@tickwheel/protocol';
import type { Logger } from 'pino';
import type { ExecutorMetrics } from '../executors/metrics.js';
import type { FireRepository, FireResult } from '../store/index.js';
import type { AppCredentials, TokenScope } from './app-credentials.js';
import type { ResultRecorder } from './result-recorder.js';

export interface CallbackCallDeps {
  recorder: Pick<ResultRecorder, 'record'>;
  clock: { now(): number };
  logger: Pick<Logger, 'warn'>;
  metrics: Pick<ExecutorMetrics, 'callbackResult'>;
  credentials: Pick<AppCredentials, 'appsWithOwnToken'>;
  fires: Pick<FireRepository, 'findFiresByIds'>;
}

/** Who sent a callback: the scope of its token, and the address a Tickwheel executor names. */
export interface CallbackSender {
  scope: TokenScope;
  /** The `Tickwheel-Address` header: only records sent to this address take its results. */
  address?: string;
}

/**
 * Takes the results of a callback. A result counts only for a record of an app the sender's
 * token acts for (and, when the sender names its address, a record sent to that address);
 * others are dropped as unknown logIds are, with a warning.
 */
export async function receiveCallback(
  deps: CallbackCallDeps,
  body: unknown,
  sender: CallbackSender,
): Promise<ReturnT<null>> {
  const items = callbackItems(body);
  if (items === null) {
    return returnFail('invalid request, the callback body must be an array or {"callbackList": [...]}.');
  }
  const handleAt = deps.clock.now();
  const results: FireResult[] = [];
  items.forEach((item, index) => {
    const param = callbackParamOf(item, index, deps.logger);
    if (param === null) return;
    deps.metrics.callbackResult(param.handleCode);
    results.push({
      fireId: param.logId,
      handleCode: param.handleCode,
      handleMsg: capHandleMsg(param.handleMsg),
      handleAt,
      ...(isKillReport(param.handleCode, param.handleMsg) ? { status: 'killed' as const } : {}),
      ...(sender.scope.kind === 'app' ? { fromApp: sender.scope.appId } : {}),
      ...(sender.address === undefined ? {} : { fromAddress: sender.address }),
      ...outputOf(param.output),
    });
  });
  await deps.recorder.record(
    sender.scope.kind === 'installation' ? await onInstallationApps(deps, results) : results,
  );
  return returnSuccess(null);
}

/**
 * The results of `results` for records of apps the installation token acts for (those in
 * compatibility mode): the records of apps with their own token are read first and dropped,
 * with a warning. Nothing is read while no app has its own token.
 */
async function onInstallationApps(deps: CallbackCallDeps, results: FireResult[]): Promise<FireResult[]> {
  if (results.length === 0) return results;
  const ownToken = await deps.credentials.appsWithOwnToken();
  if (ownToken.size === 0) return results;
  const fires = await deps.fires.findFiresByIds(results.map((r) => r.fireId));
  const appOf = new Map(fires.map((fire) => [Number(fire.id), Number(fire.app_id)]));
  const taken = results.filter((r) => {
    const appId = appOf.get(r.fireId);
    return appId === undefined || !ownToken.has(appId);
  });
  if (taken.length < results.length) {
    deps.logger.warn(
      { dropped: results.filter((r) => !taken.includes(r)).map((r) => r.fireId) },
      'callback with the installation token for records of apps with their own token; those results were dropped',
    );
  }
  return taken;
}

/** The items of a callback body, or null when it is neither shape. */
function callbackItems(body: unknown): unknown[] | null {
  if (Array.isArray(body)) return body;
  if (
    typeof body === 'object' &&
    body !== null &&
    Array.isArray((body as { callbackList?: unknown }).callbackList)
  ) {
    return (body as { callbackList: unknown[] }).callbackList;
  }
  return null;
}

/**
 * One item, normalised by the protocol package's parser (TypeBox's compiled check: some 50 ns a
 * result, see docs/benchmarks.md "Protocol parsing"); null (logged) when it cannot be read.
 */
function callbackParamOf(
  item: unknown,
  index: number,
  logger: Pick<Logger, 'warn'>,
): HandleCallbackParam | null {
  try {
    const [param] = parseCallbackBody([item]);
    return param ?? null;
  } catch (err) {
    logger.warn(
      { index, item, reason: (err as Error).message },
      'skipped a callback item that cannot be read',
    );
    return null;
  }
}

/**
 * A workflow node's output as the record keeps it (JSON text), when the item carries one within
 * the bound; one over it is left out (the executor drops it first, with a line in the run's log).
 */
function outputOf(output: unknown): { output?: string } {
  if (output === undefined) return {};
  const text = JSON.stringify(output);
  if (text === undefined || Buffer.byteLength(text) > WORKFLOW_LIMITS.outputBytes) return {};
  return { output: text };
}

/**
 * A run stopped by the scheduling center's `kill`: XXL-JOB executors (and Tickwheel's) report it
 * as code 500 with `scheduling center kill job. [job running, killed]`, and each queued run the
 * kill dropped with `scheduling center kill job. [job not executed, in the job queue, killed.]`.
 * Those runs were killed, not failed: an XXL-JOB kill stops every run of the job, not only the
 * one a user killed, and the others must not read as failures (nor be retried or alarmed as such).
 */
function isKillReport(handleCode: number, handleMsg: string | null): boolean {
  return (
    handleCode === HandleCode.FAIL &&
    (handleMsg === WireMessages.killRunning || handleMsg === WireMessages.killQueued)
  );
}
