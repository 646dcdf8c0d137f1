/**
 * The two hand-written fast paths the protocol parsers are measured against, as they were in
 * `packages/executor/src/trigger-param.ts` (`readTriggerParam`'s direct path) and
 * `packages/server/src/executor-api/callback.ts` (`usualCallbackParam`) at commit c7ba64c, before
 * the call sites used the protocol parsers directly. Kept here so `bench/protocol/parse.ts` can
 * still compare the two; only the usual shapes reach them in the benchmark (anything else would
 * have gone to the parser).
 */
import {
  BLOCK_STRATEGIES,
  type HandleCallbackParam,
  parseTriggerParam,
  type TriggerParam,
  WORKFLOW_LIMITS,
  type WorkflowRunParam,
  type WorkflowUpstreamNode,
} from '@tickwheel/protocol';

const BLOCK_STRATEGY_SET: ReadonlySet<unknown> = new Set(BLOCK_STRATEGIES);

/** The executor's `run` body reader: the usual shape read directly, anything else parsed. */
export function readTriggerParam(body: unknown): TriggerParam {
  if (typeof body !== 'object' || body === null) return parseTriggerParam(body);
  const b = body as Record<string, unknown>;
  const { jobId, logId, logDateTime, executorTimeout, glueUpdatetime, broadcastIndex, broadcastTotal } = b;
  const { executorHandler, executorParams, executorBlockStrategy, glueType, glueSource } = b;
  const workflow = b.workflow == null ? undefined : usualWorkflow(b.workflow);
  if (
    workflow !== null &&
    isCount(jobId, Number.MIN_SAFE_INTEGER) &&
    typeof executorHandler === 'string' &&
    typeof executorParams === 'string' &&
    BLOCK_STRATEGY_SET.has(executorBlockStrategy) &&
    isCount(executorTimeout, 0) &&
    isCount(logId, 0) &&
    isCount(logDateTime, 0) &&
    typeof glueType === 'string' &&
    typeof glueSource === 'string' &&
    isCount(glueUpdatetime, 0) &&
    isCount(broadcastIndex, 0) &&
    isCount(broadcastTotal, 1) &&
    broadcastIndex < broadcastTotal
  ) {
    const trigger: TriggerParam = {
      jobId,
      executorHandler,
      executorParams,
      executorBlockStrategy: executorBlockStrategy as TriggerParam['executorBlockStrategy'],
      executorTimeout,
      logId,
      logDateTime,
      glueType,
      glueSource,
      glueUpdatetime,
      broadcastIndex,
      broadcastTotal,
    };
    if (workflow !== undefined) trigger.workflow = workflow;
    return trigger;
  }
  return parseTriggerParam(body);
}

function usualWorkflow(value: unknown): WorkflowRunParam | null {
  if (typeof value !== 'object' || Array.isArray(value)) return null;
  const { runId, nodeKey, param, upstream } = value as Record<string, unknown>;
  if (!isCount(runId, 0) || !isNodeKey(nodeKey)) return null;
  if (param != null && typeof param !== 'string') return null;
  const nodes: Record<string, WorkflowUpstreamNode> = {};
  if (upstream != null) {
    if (typeof upstream !== 'object' || Array.isArray(upstream)) return null;
    for (const [key, node] of Object.entries(upstream)) {
      if (!isNodeKey(key) || typeof node !== 'object' || node === null || Array.isArray(node)) return null;
      const { status, output } = node as Record<string, unknown>;
      if (typeof status !== 'string') return null;
      nodes[key] = { status, output: output ?? null };
    }
  }
  return { runId, nodeKey, param: (param as string | null | undefined) ?? null, upstream: nodes };
}

function isNodeKey(value: unknown): value is string {
  return typeof value === 'string' && WORKFLOW_LIMITS.keyPattern.test(value);
}

function isCount(value: unknown, min: number): value is number {
  return Number.isSafeInteger(value) && (value as number) >= min;
}

/** The server's reading of one callback item of the usual shape; undefined for any other. */
export function usualCallbackParam(item: unknown): HandleCallbackParam | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const { logId, handleCode, handleMsg, logDateTim, logDateTime, executeResult, output } = item as Record<
    string,
    unknown
  >;
  if (!isCount(logId, 0) || !Number.isSafeInteger(handleCode) || executeResult != null) return undefined;
  if (handleMsg != null && typeof handleMsg !== 'string') return undefined;
  if ((logDateTim != null && !isCount(logDateTim, 0)) || (logDateTime != null && !isCount(logDateTime, 0))) {
    return undefined;
  }
  const param: HandleCallbackParam = {
    logId,
    logDateTim: (logDateTim ?? logDateTime ?? 0) as number,
    handleCode: handleCode as number,
    handleMsg: (handleMsg as string | null | undefined) ?? null,
  };
  if (output !== undefined) param.output = output;
  return param;
}
