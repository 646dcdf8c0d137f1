/**
 * Calls an executor's endpoint over real HTTP the way a scheduling server does: POST with the
 * token header, the answer read as a ReturnT.
 */
import {
  ACCESS_TOKEN_HEADER,
  callUrl,
  JSON_CONTENT_TYPE,
  parseReturnT,
  type ReturnT,
} from '@tickwheel/protocol';

export interface CallOptions {
  token?: string;
  method?: string;
  /** Sent as is instead of the JSON of `body`. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface CallAnswer {
  status: number;
  contentType: string | null;
  /** The raw JSON body, to check `content` and `data` both. */
  json: Record<string, unknown>;
  returnT: ReturnT<unknown>;
}

/** POSTs `body` to `<address><call>` (exactly one slash, as XXL-JOB matches paths exactly). */
export async function callExecutor(
  address: string,
  call: string,
  body: unknown = {},
  options: CallOptions = {},
): Promise<CallAnswer> {
  const method = options.method ?? 'POST';
  const res = await fetch(call.startsWith('http') ? call : callUrl(address, call), {
    method,
    headers: {
      'Content-Type': JSON_CONTENT_TYPE,
      ...(options.token !== undefined ? { [ACCESS_TOKEN_HEADER]: options.token } : {}),
      ...options.headers,
    },
    body: method === 'GET' || method === 'HEAD' ? undefined : (options.rawBody ?? JSON.stringify(body)),
    signal: AbortSignal.timeout(10_000),
  });
  const json = (await res.json()) as Record<string, unknown>;
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    json,
    returnT: parseReturnT(json),
  };
}

/** A TriggerParam with sensible defaults for a BEAN run. */
export function trigger(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    jobId: 1,
    executorHandler: 'hello',
    executorParams: '',
    executorBlockStrategy: 'SERIAL_EXECUTION',
    executorTimeout: 0,
    logId: 1,
    logDateTime: Date.now(),
    glueType: 'BEAN',
    glueSource: '',
    glueUpdatetime: 0,
    broadcastIndex: 0,
    broadcastTotal: 1,
    ...fields,
  };
}

let nextLogId = 1_000;
/** A logId not used before in this process. */
export function freshLogId(): number {
  nextLogId += 1;
  return nextLogId;
}
