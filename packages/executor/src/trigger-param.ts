/**
 * Reading a `run` body. Every run passes here, so the usual shape — what a Tickwheel or XXL-JOB
 * server sends — is checked field by field in plain code (the schema validation costs several
 * µs a run); anything else, a missing optional field included, goes to the protocol package's
 * `parseTriggerParam`, which fills the defaults or throws the error naming the field. Both give
 * the same TriggerParam for the same body.
 */
import { BLOCK_STRATEGIES, parseTriggerParam, type TriggerParam } from '@tickwheel/protocol';

const BLOCK_STRATEGY_SET: ReadonlySet<unknown> = new Set(BLOCK_STRATEGIES);

/** The TriggerParam of a `run` body; throws a TickwheelError naming the bad field. */
export function readTriggerParam(body: unknown): TriggerParam {
  if (typeof body !== 'object' || body === null) return parseTriggerParam(body);
  const b = body as Record<string, unknown>;
  const { jobId, logId, logDateTime, executorTimeout, glueUpdatetime, broadcastIndex, broadcastTotal } = b;
  const { executorHandler, executorParams, executorBlockStrategy, glueType, glueSource } = b;
  if (
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
    return {
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
  }
  return parseTriggerParam(body);
}

function isCount(value: unknown, min: number): value is number {
  return Number.isSafeInteger(value) && (value as number) >= min;
}
