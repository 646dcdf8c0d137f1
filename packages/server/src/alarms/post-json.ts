/**
 * The one HTTP call the webhook and the robots make: POST a JSON body, read a bounded answer.
 * What failed is classified once here: no answer, a timeout, a 5xx or a 429 may pass on a later
 * try; any other 4xx will not.
 */
import { AlarmSendError } from './alarm-send-error.js';

/** Enough for any robot's answer; a receiver sending more is not read further. */
const MAX_ANSWER_CHARS = 16_384;

export interface JsonAnswer {
  status: number;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  text: string;
}

/**
 * @throws AlarmSendError when no answer came or the status is not 2xx.
 *
 * @example
 * const answer = await postJson(url, JSON.stringify(payload), {}, context.signal);
 */
export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<JsonAnswer> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
      body,
      signal,
      // A channel's URL is where an admin said; a redirect elsewhere is not followed.
      redirect: 'error',
    });
  } catch (err) {
    throw new AlarmSendError(`POST ${safeUrl(url)} failed: ${reasonOf(err, signal)}`, {
      retryable: true,
      cause: err,
    });
  }
  const text = (await response.text().catch(() => '')).slice(0, MAX_ANSWER_CHARS);
  if (response.status < 200 || response.status > 299) {
    throw new AlarmSendError(
      `POST ${safeUrl(url)} answered HTTP ${response.status}${text === '' ? '' : `: ${text.slice(0, 200)}`}`,
      { retryable: response.status >= 500 || response.status === 429 },
    );
  }
  return { status: response.status, json: parseJson(text), text };
}

/**
 * Robots answer HTTP 200 with their own error code in the body (`errcode` for DingTalk and
 * WeCom, `code` for Feishu): 0 is success.
 *
 * @throws AlarmSendError with the robot's code and message otherwise.
 */
export function expectRobotSuccess(
  robot: string,
  answer: JsonAnswer,
  codeField: string,
  messageField: string,
): void {
  const body = answer.json as Record<string, unknown> | undefined;
  const code = body?.[codeField];
  if (code === 0) return;
  const message = body?.[messageField];
  throw new AlarmSendError(
    code === undefined
      ? `${robot} answered without ${codeField}: ${answer.text.slice(0, 200)}`
      : `${robot} refused the message: ${codeField} ${String(code)}, ${String(message ?? '')}`,
    // A robot's refusal (bad signature, keyword missing, rate limit) is not fixed by a quick retry.
    { retryable: false },
  );
}

/** The URL without its query and last path segment, where robots keep their tokens. */
export function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname.replace(/\/[^/]{16,}$/, '/***')}`;
  } catch {
    return 'the configured URL';
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function reasonOf(err: unknown, signal: AbortSignal): string {
  if (signal.aborted) {
    const reason = signal.reason as { name?: string } | undefined;
    return reason?.name === 'TimeoutError' ? 'timed out' : 'aborted';
  }
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}
