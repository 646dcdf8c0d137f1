/**
 * What follows a finished run, past FIX_DELAY's next time (the pipeline's): a failure's retry
 * and alarm (retries/failure-decisions.ts), a success's child jobs (child-jobs/child-trigger.ts).
 * The result recorder calls it once per record it finished (the hook it announces to, `announceTo`); a
 * record the recorder finishes twice does not exist, so neither follows twice. Both are owed on
 * the record before this hook runs (the failure's decision by the retry sweep, the success's
 * children by `children_status`), so a node that dies before or during it loses neither: the
 * retry monitor and the owed-children sweep pay what it did not.
 *
 * A workflow node's record moves its run on (workflows/engine.ts) once its failure is decided:
 * whether a retry is to come is what tells a failed node from a node still trying. A node that
 * dies first leaves the run to the workflow sweep.
 */
import type { ChildTrigger } from './child-jobs/child-trigger.js';
import { broadcastsToSettle, type FailureDecisions } from './retries/failure-decisions.js';
import { type FinishedFire, RETRYABLE_STATUSES } from './store/index.js';
import type { WorkflowEngine } from './workflows/engine.js';

const RETRYABLE: ReadonlySet<string> = new Set(RETRYABLE_STATUSES);

export interface AfterRunsDeps {
  decisions: Pick<FailureDecisions, 'decide'>;
  children: Pick<ChildTrigger, 'afterSuccess'>;
  workflows?: Pick<WorkflowEngine, 'afterRuns'>;
}

/**
 * The hook: decides the failures and fires the children of the successes among `finished`, and
 * answers the broadcasts that may now be settled (a failed shard with no retry to come), which
 * the recorder settles and announces in turn. Never rejects.
 */
export function afterRuns(deps: AfterRunsDeps): (finished: readonly FinishedFire[]) => Promise<number[]> {
  return async (finished) => {
    const failed = finished.filter((fire) => RETRYABLE.has(fire.status)).map((fire) => fire.fireId);
    const inWorkflows = finished.filter((fire) => fire.workflowRunId !== null);
    const [decided] = await Promise.all([
      deps.decisions.decide(failed).then((decisions) => {
        if (inWorkflows.length > 0) deps.workflows?.afterRuns(inWorkflows);
        return decisions;
      }),
      deps.children.afterSuccess(finished),
    ]);
    return broadcastsToSettle(decided);
  };
}
