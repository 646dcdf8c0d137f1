/**
 * The executor's log of one fire, read page by page (`getFireLog` from `toLineNum + 1`) and
 * appended as it grows while the run goes on.
 *
 * When to stop: an executor answers `isEnd: false` for every log file it has (only the caller
 * knows the run is over), and `isEnd: true` when it has no file — which is also what it says just
 * before a run it accepted writes its first line. So the stream ends only once the fire was seen
 * finished *before* a read, and that read brought nothing new (or said isEnd): every line the run
 * wrote was written before its result was recorded.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { call, client } from '../../api/client';
import type { Fire } from '../../api/types';
import { isInFlight } from './fire-status';

export const LOG_POLL_MS = 1_000;
/**
 * Characters of log the view keeps: a run may log gigabytes, which the reader pages through
 * (each page at most 1 MiB) while the view keeps the last part, whole lines only.
 */
export const MAX_LOG_VIEW_CHARS = 2_000_000;

/**
 * waiting: the fire is not on an executor yet; streaming: reading while the run goes on;
 * ended: every line was read; undelivered: the fire never reached an executor, so has no log;
 * error: the read failed (see `error`).
 */
export type LogState = 'waiting' | 'streaming' | 'ended' | 'undelivered' | 'error';

export interface FireLogStream {
  text: string;
  state: LogState;
  /** The run ended and its executor has no log file for it. */
  missing: boolean;
  /** Lines read but no longer kept at the top of `text` (see MAX_LOG_VIEW_CHARS). */
  droppedLines: number;
  error: unknown;
  /** Reads the log again from its first line (after an error). */
  retry(): void;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** Streams the log of `fire` (kept fresh by the caller, which polls the record while it runs). */
export function useFireLog(fire: Fire | undefined): FireLogStream {
  const latest = useRef(fire);
  useEffect(() => {
    latest.current = fire;
  }, [fire]);
  const [text, setText] = useState('');
  const [state, setState] = useState<LogState>('waiting');
  const [missing, setMissing] = useState(false);
  const [droppedLines, setDroppedLines] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);
  const fireId = fire?.id;

  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` restarts the stream on retry
  useEffect(() => {
    if (fireId === undefined) return;
    const abort = new AbortController();
    const { signal } = abort;
    setText('');
    setState('waiting');
    setMissing(false);
    setDroppedLines(0);
    setError(null);

    const stream = async () => {
      let from = 1;
      let kept = '';
      let dropped = 0;
      while (!signal.aborted) {
        const current = latest.current;
        if (current === undefined || current.status === 'pending') {
          await pause(LOG_POLL_MS, signal);
          continue;
        }
        if (current.executorAddress === null) {
          if (!isInFlight(current.status)) {
            setState('undelivered');
            return;
          }
          await pause(LOG_POLL_MS, signal);
          continue;
        }
        const finishedBefore = !isInFlight(current.status);
        setState('streaming');
        let log: Awaited<ReturnType<typeof readLog>>;
        try {
          log = await readLog(fireId, from, signal);
        } catch (err) {
          if (signal.aborted) return;
          setError(err);
          setState('error');
          return;
        }
        if (signal.aborted) return;
        const lines = log.toLineNum - from + 1;
        if (lines > 0) {
          const kept0 = kept + log.logContent;
          const start = keptStart(kept0);
          dropped += countLines(kept0, start);
          kept = start === 0 ? kept0 : kept0.slice(start);
          setText(kept);
          setDroppedLines(dropped);
          from = log.toLineNum + 1;
        }
        if (finishedBefore && (lines <= 0 || log.isEnd)) {
          setMissing(from === 1 && log.isEnd);
          setState('ended');
          return;
        }
        // A full page may have more behind it: read on at once; otherwise wait for new lines.
        if (lines <= 0) await pause(LOG_POLL_MS, signal);
      }
    };
    void stream();
    return () => abort.abort();
  }, [fireId, attempt]);

  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { text, state, missing, droppedLines, error, retry };
}

/** Where the kept part of `text` starts: 0, or the first whole line of its last MAX_LOG_VIEW_CHARS. */
function keptStart(text: string): number {
  if (text.length <= MAX_LOG_VIEW_CHARS) return 0;
  const from = text.length - MAX_LOG_VIEW_CHARS;
  const newline = text.indexOf('\n', from - 1);
  // A single line longer than the whole view is kept from the middle.
  return newline < 0 || newline + 1 >= text.length ? from : newline + 1;
}

function countLines(text: string, end: number): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < end; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

function readLog(id: number, fromLineNum: number, signal: AbortSignal) {
  return call(
    client.GET('/api/v1/fires/{id}/log', { params: { path: { id }, query: { fromLineNum } }, signal }),
  );
}
