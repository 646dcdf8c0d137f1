/**
 * The executor's client for the scheduling servers' `api/*` calls: one POST per server with the
 * token (and for G4 the app name) header, answers read as ReturnT whatever their content type.
 */
import {
  ACCESS_TOKEN_HEADER,
  APP_NAME_HEADER,
  callUrl,
  DEFAULT_CALL_TIMEOUT_MS,
  JSON_CONTENT_TYPE,
  type ProtocolGeneration,
  parseReturnT,
  type ReturnT,
  TickwheelError,
} from '@tickwheel/protocol';
import { type Logger, pino } from 'pino';

export interface ServerClientOptions {
  /** Base addresses of the servers, in the order they are tried (`http://host:8080/`). */
  serverAddresses: string[];
  /** Sent in `XXL-JOB-ACCESS-TOKEN`; empty when undefined, as XXL-JOB 3.x does. */
  accessToken: string | undefined;
  appName: string;
  /** G4 adds the `XXL-JOB-APPNAME` header; G2 and G3 send the same headers. */
  protocol: ProtocolGeneration;
  /** Time one call to one server may take; default 3 s. */
  timeoutMs?: number;
  logger?: Logger;
}

/** How one server answered one call. */
export interface ServerCallOutcome {
  address: string;
  ok: boolean;
  msg: string;
}

/**
 * No configured server accepted a call. `failures` says what each server answered, in the
 * order they were tried.
 */
export class ServerCallError extends TickwheelError {
  readonly call: string;
  readonly failures: readonly ServerCallOutcome[];

  constructor(call: string, failures: readonly ServerCallOutcome[]) {
    super(
      'TW_ERR_SERVER_CALL_FAILED',
      `no server accepted ${call}: ${failures.map((f) => `${f.address} → ${f.msg}`).join('; ') || 'no server configured'}`,
    );
    this.name = 'ServerCallError';
    this.call = call;
    this.failures = failures;
  }
}

/**
 * Posts calls to the scheduling servers. Node's fetch keeps connections alive per origin, so
 * steady heartbeats and callbacks reuse one socket per server.
 *
 * @example
 * const client = new ServerClient({ serverAddresses: ['http://127.0.0.1:8080/'], accessToken, appName: 'orders', protocol: 'G2' });
 * const { address } = await client.callFirst('api/callback', encodeCallbackBody(results, 'G2'));
 */
export class ServerClient {
  readonly serverAddresses: readonly string[];
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly logger: Logger;

  constructor(options: ServerClientOptions) {
    this.serverAddresses = [...options.serverAddresses];
    this.timeoutMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.logger = options.logger ?? pino({ name: 'tickwheel-executor' });
    this.headers = {
      'Content-Type': JSON_CONTENT_TYPE,
      [ACCESS_TOKEN_HEADER]: options.accessToken ?? '',
      ...(options.protocol === 'G4' ? { [APP_NAME_HEADER]: options.appName } : {}),
    };
  }

  /**
   * Posts to each server in the configured order and returns the first answer with code 200.
   * Throws a {@link ServerCallError} listing every server's failure when none accepted.
   */
  async callFirst(call: string, body: unknown): Promise<{ address: string; answer: ReturnT }> {
    const payload = JSON.stringify(body);
    const failures: ServerCallOutcome[] = [];
    for (const address of this.serverAddresses) {
      const result = await this.post(address, call, payload);
      if (result.answer?.code === 200) return { address, answer: result.answer };
      failures.push({ address, ok: false, msg: result.msg });
      this.logger.debug(
        { call, address, msg: result.msg },
        'server did not accept the call, trying the next',
      );
    }
    throw new ServerCallError(call, failures);
  }

  /** Posts to every server at once (registry calls) and reports how each answered; never throws. */
  async callEach(call: string, body: unknown): Promise<ServerCallOutcome[]> {
    const payload = JSON.stringify(body);
    return Promise.all(
      this.serverAddresses.map(async (address) => {
        const result = await this.post(address, call, payload);
        const ok = result.answer?.code === 200;
        return { address, ok, msg: result.msg };
      }),
    );
  }

  /** One POST; every failure (network, timeout, HTTP status, body) comes back as a message. */
  private async post(
    address: string,
    call: string,
    payload: string,
  ): Promise<{ answer?: ReturnT; msg: string }> {
    let text: string;
    try {
      const res = await fetch(callUrl(address, call), {
        method: 'POST',
        headers: this.headers,
        body: payload,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await res.text();
      if (!res.ok) return { msg: `HTTP ${res.status} ${res.statusText}`.trim() };
    } catch (err) {
      return { msg: describeFetchError(err, this.timeoutMs) };
    }
    try {
      // Real XXL-JOB servers answer text/html with a JSON body: read it as JSON regardless.
      const answer = parseReturnT(JSON.parse(text));
      return { answer, msg: answer.msg ?? `code ${answer.code}` };
    } catch {
      return { msg: `answer is not a ReturnT: ${text.slice(0, 200)}` };
    }
  }
}

function describeFetchError(err: unknown, timeoutMs: number): string {
  if (err instanceof DOMException && err.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return `${cause.code}${cause.message ? `: ${cause.message}` : ''}`;
  return err instanceof Error ? err.message : String(err);
}
