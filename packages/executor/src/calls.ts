/**
 * The server's calls on an executor (`beat`, `idleBeat`, `run`, `runBatch`, `kill`, `log`) and
 * the ReturnT each answers, whatever carried them: the HTTP endpoint (push) and the pull
 * connection (http-pull) both hand a call name and its body here, so the two transports read
 * bodies, refuse bad ones and answer with the same words by construction.
 */
import {
  type IdleBeatParam,
  isTickwheelError,
  type KillParam,
  type LogParam,
  type LogResult,
  MAX_RUN_BATCH,
  type PullCall,
  parseIdleBeatParam,
  parseKillParam,
  parseLogParam,
  parseTriggerParam,
  type ReturnT,
  returnFail,
  returnSuccess,
  TickwheelError,
  type TriggerParam,
} from '@tickwheel/protocol';
import type { Logger } from 'pino';

/** What a call asks the executor to do, one method per call. */
export interface ExecutorCalls {
  /** An acceptance may be answered later (once its logId is on disk); a refusal at once. */
  run(trigger: TriggerParam): ReturnT<null> | Promise<ReturnT<null>>;
  idleBeat(param: IdleBeatParam): ReturnT<null>;
  kill(param: KillParam): ReturnT<null>;
  log(param: LogParam): Promise<ReturnT<LogResult>>;
}

/** The call names, as the pull frames spell them (the HTTP paths without their slash). */
export type CallName = PullCall;

/** What `runBatch` answers for one trigger: the code and message its own `run` would have answered. */
export interface RunAnswer {
  code: number;
  msg: string | null;
}

/**
 * Answers one call. `readBody` gives the call's body, and may throw a TickwheelError (a
 * malformed HTTP body); it is not read for `beat`, which answers success whatever it carries.
 * Never rejects: a refusal is a failure ReturnT naming the field, an unexpected error is logged
 * and answered as `executor error: <message>`.
 */
export type CallAnswerer = (call: CallName, readBody: () => unknown) => Promise<ReturnT<unknown>>;

/** The answerer over `calls`; one per executor, shared by its transports. */
export function createCallAnswerer(calls: ExecutorCalls, logger: Logger): CallAnswerer {
  return async (call, readBody) => {
    if (call === 'beat') return returnSuccess(null);
    try {
      return await dispatch(call, readBody());
    } catch (err) {
      if (isTickwheelError(err)) return returnFail(err.message);
      logger.error({ err, call }, 'executor failed to answer a call');
      return returnFail(`executor error: ${messageOf(err)}`);
    }
  };

  function dispatch(
    call: Exclude<CallName, 'beat'>,
    body: unknown,
  ): ReturnT<unknown> | Promise<ReturnT<unknown>> {
    switch (call) {
      case 'run':
        return calls.run(parseTriggerParam(body));
      case 'runBatch':
        return runBatch(body);
      case 'idleBeat':
        return calls.idleBeat(parseIdleBeatParam(body));
      case 'kill':
        return calls.kill(parseKillParam(body));
      case 'log':
        return calls.log(parseLogParam(body));
    }
  }

  /**
   * Decides each trigger in order as `run` would. Past the body check every trigger gets its own
   * answer, so a batch is never refused half-applied: the server re-sending the whole batch one
   * run at a time would meet the runs accepted already as repeats.
   */
  function runBatch(body: unknown): Promise<ReturnT<RunAnswer[]>> {
    if (!Array.isArray(body)) {
      throw new TickwheelError(
        'TW_ERR_INVALID_FIELD',
        'body: a runBatch body must be an array of TriggerParam',
      );
    }
    if (body.length > MAX_RUN_BATCH) {
      throw new TickwheelError(
        'TW_ERR_INVALID_FIELD',
        `body: at most ${MAX_RUN_BATCH} triggers in one runBatch`,
      );
    }
    // Decided one after the other now; the acceptances are then answered together, once on disk.
    const answers: Array<RunAnswer | Promise<RunAnswer>> = new Array(body.length);
    for (let i = 0; i < body.length; i++) answers[i] = runOne(body[i]);
    return Promise.all(answers).then(returnSuccess);
  }

  function runOne(item: unknown): RunAnswer | Promise<RunAnswer> {
    try {
      const answer = calls.run(parseTriggerParam(item));
      if (answer instanceof Promise) return answer.then(({ code, msg }) => ({ code, msg }));
      return { code: answer.code, msg: answer.msg };
    } catch (err) {
      if (isTickwheelError(err)) return { code: 500, msg: err.message };
      logger.error({ err }, 'a run of a runBatch failed');
      return { code: 500, msg: `executor error: ${messageOf(err)}` };
    }
  }
}

function messageOf(err: unknown): string {
  return (err as Error)?.message ?? String(err);
}
