/**
 * The executor's client for the scheduling servers' `api/*` calls: one POST per server with the
 * token (and for G4 the app name) header, answers read as ReturnT whatever their content type.
 */
import http from 'node:http';
import https from 'node:https';
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
 * Posts calls to the scheduling servers over kept-alive connections (`node:http` agents, whose
 * idle sockets never hold the process open), so steady heartbeats and callbacks reuse a socket
 * per server. `fetch` would do the same at about three times the CPU per call: its web streams
 * and request objects cost more than a callback batch's own work.
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
  private readonly httpAgent = new http.Agent({ keepAlive: true });
  private readonly httpsAgent = new https.Agent({ keepAlive: true });

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
  async callFirst(
    call: string,
    body: unknown,
    extraHeaders?: Record<string, string>,
  ): Promise<{ address: string; answer: ReturnT }> {
    const payload = JSON.stringify(body);
    const failures: ServerCallOutcome[] = [];
    for (const address of this.serverAddresses) {
      const result = await this.post(address, call, payload, extraHeaders);
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

  /** POSTs `payload` and reads the whole answer as UTF-8, within the call timeout. */
  private request(
    url: string,
    payload: string,
    extraHeaders?: Record<string, string>,
  ): Promise<{ status: number; statusText: string; text: string }> {
    return new Promise((resolve, reject) => {
      const target = new URL(url);
      const secure = target.protocol === 'https:';
      const req = (secure ? https : http).request(target, {
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        headers: { ...this.headers, ...extraHeaders, 'Content-Length': Buffer.byteLength(payload) },
      });
      let settled = false;
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        req.destroy(new CallTimeout());
      }, this.timeoutMs);
      const fail = (err: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(timedOut ? new CallTimeout() : err);
      };
      req.on('error', fail);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', fail);
        res.on('close', () => fail(new Error('the connection closed before the answer ended')));
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
      });
      req.end(payload);
    });
  }

  /** Closes the kept-alive connections (calls in flight go on to their end). */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  /** One POST; every failure (network, timeout, HTTP status, body) comes back as a message. */
  private async post(
    address: string,
    call: string,
    payload: string,
    extraHeaders?: Record<string, string>,
  ): Promise<{ answer?: ReturnT; msg: string }> {
    let text: string;
    try {
      const res = await this.request(callUrl(address, call), payload, extraHeaders);
      text = res.text;
      if (res.status < 200 || res.status > 299) return { msg: `HTTP ${res.status} ${res.statusText}`.trim() };
    } catch (err) {
      return { msg: describeRequestError(err, this.timeoutMs) };
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

/** The whole call, connect to the last byte of the answer, had no more than the timeout. */
class CallTimeout extends Error {}

function describeRequestError(err: unknown, timeoutMs: number): string {
  if (err instanceof CallTimeout) return `no answer within ${timeoutMs} ms`;
  const e = err as { code?: unknown; message?: unknown };
  const message = typeof e?.message === 'string' ? e.message : String(err);
  return typeof e?.code === 'string' ? `${e.code}: ${message}` : message;
}
