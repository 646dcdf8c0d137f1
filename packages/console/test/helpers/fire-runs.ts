/**
 * Jobs and fires through the REST API for the fire-record and script tests: create a job on the
 * test app, fire it once, wait for its record to finish, and read its whole executor log.
 */
import { type Platform, waitFor } from './platform.js';

export interface FireRecord {
  triggerMsg: string | null;
  id: number;
  jobId: number;
  status: string;
  executorAddress: string | null;
  handleCode: number | null;
  handleMsg: string | null;
}

interface FireLogPage {
  fromLineNum: number;
  toLineNum: number;
  logContent: string;
  isEnd: boolean;
}

const IN_FLIGHT = new Set(['pending', 'dispatched']);

/** Creates a job of the test app (stopped unless `triggerStatus: 1`) and returns its id. */
export async function createJob(platform: Platform, fields: Record<string, unknown>): Promise<number> {
  const job = await platform.api<{ id: number }>('POST', '/api/v1/jobs', {
    appId: platform.appId,
    ...fields,
  });
  return job.id;
}

/** Fires the job once now with `param`; returns the fire record's id. */
export async function triggerOnce(platform: Platform, jobId: number, param?: string): Promise<number> {
  const answer = await platform.api<{ fireIds: number[] }>(
    'POST',
    `/api/v1/jobs/${jobId}/trigger`,
    param === undefined ? {} : { executorParam: param },
  );
  const [fireId] = answer.fireIds;
  if (fireId === undefined) throw new Error(`triggering job ${jobId} created no fire record`);
  return fireId;
}

export function getFire(platform: Platform, fireId: number): Promise<FireRecord> {
  return platform.api<FireRecord>('GET', `/api/v1/fires/${fireId}`);
}

/** Waits until the fire has finished (any final status) and returns its record. */
export async function waitForFinished(
  platform: Platform,
  fireId: number,
  timeoutMs = 30_000,
): Promise<FireRecord> {
  let fire: FireRecord | undefined;
  await waitFor(
    async () => {
      fire = await getFire(platform, fireId);
      return !IN_FLIGHT.has(fire.status);
    },
    `fire ${fireId} to finish`,
    timeoutMs,
  );
  return fire!;
}

/** Waits until the fire is running on the executor. */
export async function waitForRunning(platform: Platform, fireId: number): Promise<void> {
  await waitFor(
    async () => (await getFire(platform, fireId)).status === 'dispatched',
    `fire ${fireId} to run`,
  );
}

/** The fire's whole executor log (`getFireLog` page by page). */
export async function readWholeLog(platform: Platform, fireId: number): Promise<string> {
  let text = '';
  let from = 1;
  for (;;) {
    const page = await platform.api<FireLogPage>('GET', `/api/v1/fires/${fireId}/log?fromLineNum=${from}`);
    if (page.toLineNum < from) return text;
    text += page.logContent;
    from = page.toLineNum + 1;
  }
}
