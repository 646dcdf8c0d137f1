/**
 * Set-up for the alarm suites: a job with a failed fire record, alarm channels written through
 * the store, and an AlarmQueue on that store with timings short enough for tests.
 */
import { pino } from 'pino';
import { AlarmQueue } from '../../src/alarms/alarm-queue.js';
import type { AlarmQueueLimits } from '../../src/alarms/options.js';
import { systemClock } from '../../src/scheduling/clock.js';
import type { NetworkRules } from '../../src/security/network-rules.js';
import type { AlarmChannelRow, FireRow, JobRow, NewJob, Store } from '../../src/store/index.js';

/** Retries 50 ms apart, sends cut after 2 s: a test sees every behaviour within a second or two. */
export const FAST_ALARMS: AlarmQueueLimits = { retryDelayMs: 50, maxRetryDelayMs: 400, sendTimeoutMs: 2_000 };

/** An alarm queue on `store`; `networkRules` says where its channels may connect (default: the defaults). */
export function alarmQueue(
  store: Store,
  limits: AlarmQueueLimits = {},
  networkRules?: NetworkRules,
): AlarmQueue {
  return new AlarmQueue({
    store,
    clock: systemClock,
    logger: pino({ level: process.env.TW_E2E_LOG_LEVEL ?? 'silent' }),
    limits: { ...FAST_ALARMS, ...limits },
    ...(networkRules === undefined ? {} : { networkRules }),
  });
}

let counter = 0;

/** An app, a job of it, and a fire record of the job that failed with `handleMsg`. */
export async function failedFire(
  store: Store,
  job: Partial<NewJob> = {},
  handleMsg = 'boom: the handler threw',
): Promise<{ job: JobRow; fire: FireRow }> {
  counter += 1;
  const now = Date.now();
  const app = await store.apps.createApp(
    {
      appName: `alarm-app-${counter}-${Math.random().toString(36).slice(2, 6)}`,
      title: 'Orders',
      addressType: 'AUTO',
    },
    now,
  );
  const jobRow = await store.jobs.createJob(
    { app_id: app.id, name: `nightly-report-${counter}`, executor_handler: 'report', ...job },
    now,
  );
  const [fireId] = await store.fires.createFires(
    [
      {
        jobId: jobRow.id,
        appId: app.id,
        scheduledAt: now,
        triggerType: 'CRON',
        executorHandler: 'report',
        executorParam: '',
      },
    ],
    now,
  );
  await store.fires.finishFires([{ fireId: fireId!, handleCode: 500, handleMsg, handleAt: now }]);
  return { job: jobRow, fire: (await store.fires.findFireById(fireId!))! };
}

export async function addChannel(
  store: Store,
  type: string,
  config: Record<string, unknown>,
  fields: { name?: string; enabled?: boolean } = {},
): Promise<AlarmChannelRow> {
  counter += 1;
  return store.alarmChannels.createAlarmChannel(
    {
      name: fields.name ?? `${type.toLowerCase()}-${counter}`,
      type,
      enabled: fields.enabled ?? true,
      config: JSON.stringify(config),
    },
    Date.now(),
  );
}

/** Raises the alarm of `fire` and waits until the queue has sent and recorded it. */
export async function raiseAndWait(
  queue: AlarmQueue,
  alarm: { job: JobRow; fire: FireRow; reason?: string },
): Promise<void> {
  queue.raise({ job: alarm.job, fire: alarm.fire, reason: alarm.reason ?? 'fire failed; no retry left' });
  await queue.idle();
}
