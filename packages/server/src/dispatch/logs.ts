/**
 * Reading a run's log: `log` goes to the executor the fire record says the run was sent to,
 * never to an address a user supplies (that would let anyone make the server fetch any URL).
 * Each read is one page of bounded size (log-page.ts), whatever the executor answers.
 */
import type { LogResult } from '@tickwheel/protocol';
import type { ExecutorClient } from './executor-client.js';
import type { RecordedRun } from './kill.js';
import { DEFAULT_LOG_PAGE_LIMITS, type LogPageLimits } from './log-page.js';

export interface LogRead {
  ok: boolean;
  /** Lines `fromLineNum..toLineNum`; the caller pages with `fromLineNum = toLineNum + 1`. */
  result: LogResult | null;
  /** True when the executor had more lines after this page (it was cut to the page limits). */
  more: boolean;
  /** What went wrong when not ok. */
  msg: string | null;
}

export async function readRunLog(
  client: ExecutorClient,
  run: RecordedRun,
  fromLineNum: number,
  limits: LogPageLimits = DEFAULT_LOG_PAGE_LIMITS,
): Promise<LogRead> {
  if (run.executor === null) {
    return {
      ok: false,
      result: null,
      more: false,
      msg: `fire ${run.fireId} was not delivered to any executor; it has no log`,
    };
  }
  const answer = await client.logPage(
    run.executor,
    { logDateTim: run.logDateTime, logId: run.fireId, fromLineNum },
    limits,
  );
  if (!answer.ok) return { ok: false, result: null, more: false, msg: answer.msg ?? `code ${answer.code}` };
  const page = answer.content;
  if (page === null) {
    return { ok: false, result: null, more: false, msg: "the executor's log answer carries no LogResult" };
  }
  const { more, ...result } = page;
  return { ok: true, result, more, msg: null };
}
