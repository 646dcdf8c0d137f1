/**
 * Reading a run's log: `log` goes to the executor the fire record says the run was sent to,
 * never to an address a user supplies (that would let anyone make the server fetch any URL).
 */
import { type LogResult, parseLogResult } from '@tickwheel/protocol';
import type { ExecutorClient } from './executor-client.js';
import type { RecordedRun } from './kill.js';

export interface LogRead {
  ok: boolean;
  /** Lines `fromLineNum..toLineNum`; the caller pages with `fromLineNum = toLineNum + 1`. */
  result: LogResult | null;
  /** What went wrong when not ok. */
  msg: string | null;
}

export async function readRunLog(
  client: ExecutorClient,
  run: RecordedRun,
  fromLineNum: number,
): Promise<LogRead> {
  if (run.executor === null) {
    return {
      ok: false,
      result: null,
      msg: `fire ${run.fireId} was not delivered to any executor; it has no log`,
    };
  }
  const answer = await client.log(run.executor, {
    logDateTim: run.logDateTime,
    logId: run.fireId,
    fromLineNum,
  });
  if (!answer.ok) return { ok: false, result: null, msg: answer.msg ?? `code ${answer.code}` };
  try {
    return { ok: true, result: parseLogResult(answer.content), msg: null };
  } catch (err) {
    return {
      ok: false,
      result: null,
      msg: `the executor's log answer is not a LogResult: ${(err as Error).message}`,
    };
  }
}
