/**
 * What one fire's dispatch is asked to do, from its record, its job and its app: the address list
 * a trigger stored on the record, the executors an override names (each in the generation known
 * for it), and the `FireToDispatch` the dispatcher takes.
 */
import type { RouteStrategy, TriggerType } from '@tickwheel/protocol';
import type { Logger } from 'pino';
import type { DueFire, DueJob } from '../store/hot/due-load.js';
import type { AppGroupRow } from '../store/index.js';
import type { FireToDispatch, WorkflowRunContext } from './dispatcher.js';
import type { ExecutorAddress } from './executor-client.js';
import type { AppExecutors, DispatchRequest } from './fire-pipeline.js';

/**
 * `request` with the address list stored on a trigger-once record (`address_override`, checked
 * against the app when the trigger was asked). A list that does not read is logged and left out:
 * the record then goes by the job's route, as it did before the list was stored.
 */
export function withStoredOverride(fire: DueFire, request: DispatchRequest, logger: Logger): DispatchRequest {
  const stored = fire.address_override;
  if (stored === null || stored === undefined) return request;
  try {
    const list: unknown = JSON.parse(stored);
    if (Array.isArray(list) && list.length > 0 && list.every((address) => typeof address === 'string')) {
      return { ...request, addressOverride: list };
    }
  } catch {
    // Logged below, with the record.
  }
  logger.warn(
    { fireId: fire.id, addressOverride: stored },
    'the stored address list of a fire does not read; routing it',
  );
  return request;
}

/** The override addresses as executors, each with the generation known for it (G2 when none is). */
export function overrideTargets(
  app: AppGroupRow,
  addresses: readonly string[],
  executors: AppExecutors,
): ExecutorAddress[] {
  return addresses.map((address) => ({
    address,
    protocol: executors.generationOf?.(app, address) ?? 'G2',
    appName: app.app_name,
  }));
}

export function toDispatch(
  fire: DueFire,
  job: DueJob,
  app: AppGroupRow,
  request: DispatchRequest,
  resendTo: ExecutorAddress | undefined,
): FireToDispatch {
  const workflow = workflowContextOf(fire);
  return {
    fireId: fire.id,
    jobId: job.id,
    appName: app.app_name,
    scheduledAt: fire.scheduled_at,
    triggerType: fire.trigger_type as TriggerType,
    executorHandler: fire.executor_handler,
    executorParam: fire.executor_param ?? '',
    executorBlockStrategy: job.executor_block_strategy as FireToDispatch['executorBlockStrategy'],
    executorTimeout: workflow?.timeoutSeconds ?? job.executor_timeout,
    glueType: job.glue_type,
    glueSource: job.glue_source,
    glueUpdatedAt: job.glue_updated_at,
    routeStrategy: job.executor_route_strategy as RouteStrategy,
    ...(request.addressOverride?.length ? { addressOverride: request.addressOverride } : {}),
    ...(request.shard === undefined ? {} : { shard: request.shard }),
    ...(request.leased === true ? { leased: true } : {}),
    ...(resendTo === undefined ? {} : { resendTo }),
    ...(workflow === undefined
      ? {}
      : {
          workflow: {
            runId: workflow.runId,
            nodeKey: workflow.nodeKey,
            param: workflow.param,
            upstream: workflow.upstream,
          },
        }),
  };
}

/** The stored context of a workflow node's record (workflows/engine.ts writes it); undefined for any other record. */
function workflowContextOf(fire: DueFire): (WorkflowRunContext & { timeoutSeconds?: number }) | undefined {
  const stored = fire.workflow_context;
  if (stored === null || stored === undefined) return undefined;
  try {
    return JSON.parse(stored) as WorkflowRunContext & { timeoutSeconds?: number };
  } catch {
    return undefined;
  }
}
