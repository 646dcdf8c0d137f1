/**
 * The one HTTP call the webhook and the robots make: POST a JSON body, read a bounded answer.
 * What failed is classified once here: no answer, a timeout, a 5xx or a 429 may pass on a later
 * try; any other 4xx will not.
 *
 * The connection is made by the server's network rules (security/network-rules.ts): a URL whose
 * host is, or resolves to, a denied address fails before anything is sent to it. A redirect is an
 * answer like any other (`answered HTTP 302`), never followed: the channel's URL is where an admin
 * said, and a redirect elsewhere would take the signed alarm past the rules' check of that URL.
 */
import { Agent, request } from 'undici';
import { guardedConnector } from '../security/guarded-connector.js';
import { DeniedAddressError, type NetworkRules } from '../security/network-rules.js';
import { AlarmSendError } from './alarm-send-error.js';

/** Enough for any robot's answer; a receiver sending more is not read further. */
const MAX_ANSWER_BYTES = 16_384;

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
 * const answer = await postJson(url, JSON.stringify(payload), {}, context);
 */
export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  context: { signal: AbortSignal; networkRules: NetworkRules },
): Promise<JsonAnswer> {
  const { signal, networkRules } = context;
  // One connection per alarm, as for e-mail: alarms are rare, and nothing is pooled past the send.
  const agent = new Agent({ connections: 1, connect: guardedConnector(networkRules) });
  try {
    let status: number;
    let text: string;
    try {
      const response = await request(url, {
        dispatcher: agent,
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
        body,
        signal,
      });
      status = response.statusCode;
      text = await readCapped(response.body);
    } catch (err) {
      throw new AlarmSendError(`POST ${safeUrl(url)} failed: ${reasonOf(err, signal)}`, {
        // A denied address stays denied until an admin changes the rules or the URL.
        retryable: !(err instanceof DeniedAddressError),
        cause: err,
      });
    }
    if (status < 200 || status > 299) {
      throw new AlarmSendError(
        `POST ${safeUrl(url)} answered HTTP ${status}${text === '' ? '' : `: ${text.slice(0, 200)}`}`,
        { retryable: status >= 500 || status === 429 },
      );
    }
    return { status, json: parseJson(text), text };
  } finally {
    await agent.destroy();
  }
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

/** The answer's first bytes as UTF-8; the rest is not read (the connection is dropped after the send). */
async function readCapped(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= MAX_ANSWER_BYTES) break;
  }
  return Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8');
}

function reasonOf(err: unknown, signal: AbortSignal): string {
  if (signal.aborted) {
    const reason = signal.reason as { name?: string } | undefined;
    return reason?.name === 'TimeoutError' ? 'timed out' : 'aborted';
  }
  if (err instanceof DeniedAddressError) return err.message;
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e?.code === 'string' && e.code !== '') return e.code;
  return typeof e?.message === 'string' ? e.message : String(err);
}
