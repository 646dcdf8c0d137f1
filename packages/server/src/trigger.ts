/**
 * Trigger-once (`triggerJob`, XXL-JOB's "run once"): a MANUAL or API fire of a job, now, with an
 * optional parameter and an optional list of executors to run on. The record is created, then
 * handed to the fire pipeline at once; the answer comes once the dispatch is marked.
 *
 * A record left pending (the server died before dispatching it) is sent by the next recovery
 * of its job's shard, like a claimed fire, or follows the job's misfire policy when it is more
 * than the window late. The address override is stored with the record (`address_override`), so
 * that dispatch goes to the executors the trigger named, not by the job's route.
 *
 * An address override must be one of the app's known addresses (its registered executors or
 * its typed list): XXL-JOB's SSRF advisories came from sending runs wherever a user said.
 */
import { TickwheelError } from '@tickwheel/protocol';
import type { DispatchOutcome } from './dispatch/dispatcher.js';
import type { FirePipeline } from './dispatch/fire-pipeline.js';
import type { InFlightFires } from './scheduling/in-flight.js';
import type { AppGroupRow, FireRow, JobRow, Store } from './store/index.js';

export interface TriggerJobRequest {
  jobId: number;
  /** MANUAL from the console, API from a script. Default MANUAL. */
  triggerType?: 'MANUAL' | 'API';
  /** This run's parameter; undefined runs with the job's own `executorParam`. */
  executorParam?: string | null;
  /** Executors to choose from (by the job's route) instead of the online ones; each must be the app's. */
  addressList?: readonly string[];
}

export interface TriggeredFire {
  /** The record created for the run (for a broadcast, shard 0; the other shards hang off it). */
  fireId: number;
  /** One per executor the run went to (one unless broadcast), as marked in the records. */
  outcomes: DispatchOutcome[];
}

export interface TriggerDeps {
  store: Pick<Store, 'jobs' | 'apps' | 'fires'>;
  pipeline: Pick<FirePipeline, 'dispatchCreated'>;
  /**
   * The records this process is dispatching (scheduling/in-flight.ts): each record goes in as soon
   * as it exists, so a recovery of its shard in this process meanwhile leaves it to this
   * dispatch. (A record whose dispatch never marks it — the process died — stays pending, and the
   * next recovery of its shard sends it.)
   */
  inFlight: Pick<InFlightFires, 'add'>;
  clock: { now(): number };
  /** Every address the app is known by: registered executors and its typed address list. */
  knownAddresses(app: AppGroupRow): readonly string[];
}

/** A fire record created for a run now, and its dispatch under way. */
export interface CreatedFire {
  fireId: number;
  /** Resolves with the dispatch's outcomes once they are marked; never rejects. */
  dispatched: Promise<DispatchOutcome[]>;
}

/**
 * Fires a job once, now, and resolves once the dispatch is marked.
 *
 * @throws TickwheelError `TW_ERR_UNKNOWN_JOB` (field `jobId`) for an unknown job,
 *   `TW_ERR_UNKNOWN_APP` (field `appId`) for a job whose app is gone,
 *   `TW_ERR_INVALID_FIELD` (field `addressList[i]`) for an address the app does not know.
 */
export async function triggerJob(deps: TriggerDeps, request: TriggerJobRequest): Promise<TriggeredFire> {
  const job = await deps.store.jobs.findJobById(request.jobId);
  if (job === undefined)
    throw new TickwheelError('TW_ERR_UNKNOWN_JOB', `job ${request.jobId} not found`, 'jobId');
  const app = await deps.store.apps.findAppById(job.app_id);
  if (app === undefined) {
    throw new TickwheelError('TW_ERR_UNKNOWN_APP', `app ${job.app_id} of job ${job.id} not found`, 'appId');
  }
  const addressOverride = checkedOverride(request.addressList ?? [], app, deps.knownAddresses(app));
  const created = await fireOnce(deps, job, {
    triggerType: request.triggerType ?? 'MANUAL',
    executorParam: request.executorParam === undefined ? job.executor_param : request.executorParam,
    addressOverride,
  });
  return { fireId: created.fireId, outcomes: await created.dispatched };
}

/**
 * Creates the record of one run of `job` now and hands it to the pipeline at once; resolves
 * when the record exists (the dispatch goes on). The caller has checked `addressOverride`
 * against the app's addresses (the REST API does, with the same rule as `triggerJob`).
 */
export async function fireOnce(
  deps: Pick<TriggerDeps, 'store' | 'pipeline' | 'inFlight' | 'clock'>,
  job: JobRow,
  run: { triggerType: 'MANUAL' | 'API'; executorParam: string | null; addressOverride: string[] },
): Promise<CreatedFire> {
  const now = deps.clock.now();
  const [fireId] = await deps.store.fires.createFires(
    [
      {
        jobId: job.id,
        appId: job.app_id,
        scheduledAt: now,
        triggerType: run.triggerType,
        executorHandler: job.executor_handler,
        executorParam: run.executorParam,
        // A run fired by hand is retried like a scheduled one (XXL-JOB does the same).
        retryCount: job.executor_fail_retry_count,
        addressOverride: run.addressOverride,
      },
    ],
    now,
  );
  deps.inFlight.add([fireId!]);
  const fire = (await deps.store.fires.findFireById(fireId!)) as FireRow;
  return {
    fireId: fire.id,
    dispatched: deps.pipeline.dispatchCreated(fire, { addressOverride: run.addressOverride }),
  };
}

/** The override in the app's own spelling of each address; throws for one the app does not know. */
function checkedOverride(requested: readonly string[], app: AppGroupRow, known: readonly string[]): string[] {
  const byKey = new Map(known.map((address) => [addressKey(address), address]));
  return requested.map((address, i) => {
    const match = typeof address === 'string' ? byKey.get(addressKey(address)) : undefined;
    if (match === undefined) {
      throw new TickwheelError(
        'TW_ERR_INVALID_FIELD',
        `addressList[${i}]: ${String(address)} is not an executor address of app ${app.app_name}`,
        `addressList[${i}]`,
      );
    }
    return match;
  });
}

/** `http://a:1` and `http://a:1/` are the same executor (the caller adds the slash). */
function addressKey(address: string): string {
  return address.trim().replace(/\/+$/, '');
}
