/**
 * Reading a `run` body. Every run passes here, so the usual shape — what a Tickwheel or XXL-JOB
 * server sends — is checked field by field in plain code (the schema validation costs several
 * µs a run); anything else, a missing optional field included, goes to the protocol package's
 * `parseTriggerParam`, which fills the defaults or throws the error naming the field. Both give
 * the same TriggerParam for the same body, the `workflow` extension of a workflow node's fire
 * included.
 */
import {
  BLOCK_STRATEGIES,
  parseTriggerParam,
  type TriggerParam,
  WORKFLOW_LIMITS,
  type WorkflowRunParam,
  type WorkflowUpstreamNode,
} from '@tickwheel/protocol';

const BLOCK_STRATEGY_SET: ReadonlySet<unknown> = new Set(BLOCK_STRATEGIES);

/** The TriggerParam of a `run` body; throws a TickwheelError naming the bad field. */
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

/**
 * The `workflow` extension as the protocol parser gives it, when it has the shape a Tickwheel
 * server sends; null for anything else (the parser then reads it or names what is wrong).
 */
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
