/**
 * Tiny loopback HTTP servers that answer like real XXL-JOB executors (PROTOCOL.md, "What real
 * XXL-JOB executors do"): exact path matching (`//run` is not found), `text/html` answers whose
 * null fields are left out (`{"code":200}` from 2.x, `{"code":200,"msg":"Success"}` from 3.x),
 * 3.5 taking runs on `trigger` and requiring `XXL-JOB-APPNAME`. Knobs make one slow, hung,
 * broken or busy, and every request is recorded as received.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** `2.x` = G2 (xxl-job-core 2.x), `3.x` = G3 (3.3–3.4), `3.5` = G4. */
export type MimicGeneration = '2.x' | '3.x' | '3.5';

export interface MimicRequest {
  method: string;
  /** The request target exactly as received (`/run`, `//run`, `/ctx/run`). */
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The body parsed as JSON, or the raw text when it is not JSON. */
  body: unknown;
}

export interface MimicOptions {
  generation: MimicGeneration;
  /** When set, a request whose `XXL-JOB-ACCESS-TOKEN` differs is refused with code 500. */
  accessToken?: string;
  /** App name a 3.5 mimic requires in `XXL-JOB-APPNAME`. Default `mimic-app`. */
  appName?: string;
  /** Path prefix the calls are served under (an executor behind a context path). Default none. */
  contextPath?: string;
}

export const MIMIC_APP = 'mimic-app';
export const BUSY_MESSAGE = 'job thread is running or has trigger queue.';

export class XxlMimic {
  readonly requests: MimicRequest[] = [];
  /** Answers wait this long. */
  answerDelayMs = 0;
  /** Requests are read and never answered (until `stop()`). */
  hang = false;
  /** Answers carry this HTTP status (real executors always send 200). */
  httpStatus = 200;
  /** Sent as the answer body instead of a ReturnT. */
  rawAnswer: string | undefined;
  /** `idleBeat` for these job ids answers code 500, as for a lane that is running. */
  readonly busyJobIds = new Set<number>();
  /** Lines `log` serves for any logId. */
  logLines: string[] = ['line one', 'line two'];
  /**
   * When set, the mimic keeps each job's runs as a real executor's lane would (the first run
   * accepted is running, the rest queued; runs never end on their own) and `kill` reports them to
   * this server's `api/callback` as XXL-JOB does: the running run and every queued one, killed.
   */
  callbacksTo: { url: string; accessToken: string } | undefined;
  /** Runs accepted per job, the running one first (kept only with `callbacksTo`). */
  readonly lanes = new Map<number, { logId: number; logDateTime: number }[]>();
  /** TCP connections accepted so far (to see keep-alive at work). */
  connections = 0;
  private server: http.Server | undefined;
  private port = 0;

  constructor(private readonly options: MimicOptions) {}

  /** Base address as it would be registered, with a trailing slash. */
  get address(): string {
    return `http://127.0.0.1:${this.port}${this.options.contextPath ?? ''}/`;
  }

  /** Requests whose target was exactly `url`. */
  requestsTo(url: string): MimicRequest[] {
    return this.requests.filter((r) => r.url === url);
  }

  async start(): Promise<this> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.receive(req, Buffer.concat(chunks).toString('utf8'), res));
    });
    server.on('connection', () => {
      this.connections += 1;
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private receive(req: http.IncomingMessage, text: string, res: http.ServerResponse): void {
    let body: unknown;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      body = text;
    }
    const url = req.url ?? '';
    this.requests.push({ method: req.method ?? '', url, headers: req.headers, body });
    if (this.hang) return;
    const answer = this.rawAnswer ?? JSON.stringify(this.answerFor(req, url, body));
    const send = () => {
      if (res.destroyed) return;
      res.writeHead(this.httpStatus, { 'Content-Type': 'text/html;charset=UTF-8' });
      res.end(answer);
    };
    if (this.answerDelayMs > 0) setTimeout(send, this.answerDelayMs);
    else send();
  }

  private answerFor(req: http.IncomingMessage, url: string, body: unknown): Record<string, unknown> {
    if (req.method !== 'POST') return this.fail('invalid request, HttpMethod not support.');
    const token = this.options.accessToken;
    if (token !== undefined && req.headers['xxl-job-access-token'] !== token) {
      return this.fail('The access token is wrong.');
    }
    const g4 = this.options.generation === '3.5';
    if (g4 && req.headers['xxl-job-appname'] !== (this.options.appName ?? MIMIC_APP)) {
      return this.fail('The app name is wrong.');
    }
    const prefix = this.options.contextPath ?? '';
    const fields = (body ?? {}) as Record<string, unknown>;
    // Exact matching, as XXL-JOB's embedded server does: `//run`, `/run/` and `/run?x` are not found.
    switch (url) {
      case `${prefix}/beat`:
        return this.ok();
      case `${prefix}/idleBeat`:
        return this.busyJobIds.has(Number(fields.jobId)) ? this.fail(BUSY_MESSAGE) : this.ok();
      case `${prefix}/${g4 ? 'trigger' : 'run'}`:
        if (this.callbacksTo !== undefined) this.acceptRun(fields);
        return this.ok();
      case `${prefix}/kill`:
        if (this.callbacksTo !== undefined && this.lanes.has(Number(fields.jobId))) {
          this.killLane(Number(fields.jobId));
          return this.ok();
        }
        return this.ok(null, 'job thread already killed.');
      case `${prefix}/log`: {
        const dateField = g4 ? 'logDateTime' : 'logDateTim';
        if (typeof fields[dateField] !== 'number') return this.fail(`${dateField} is missing`);
        const from = Number(fields.fromLineNum ?? 1);
        const lines = this.logLines.slice(from - 1);
        return this.ok({
          fromLineNum: from,
          toLineNum: from + lines.length - 1,
          logContent: lines.map((l) => `${l}\n`).join(''),
          isEnd: false,
        });
      }
      default:
        return this.fail(`invalid request, uri-mapping(${url}) not found.`);
    }
  }

  private acceptRun(fields: Record<string, unknown>): void {
    const jobId = Number(fields.jobId);
    const lane = this.lanes.get(jobId) ?? [];
    lane.push({ logId: Number(fields.logId), logDateTime: Number(fields.logDateTime) });
    this.lanes.set(jobId, lane);
  }

  /** XXL-JOB's kill: the job's running run and each queued run reported killed, in one callback. */
  private killLane(jobId: number): void {
    const runs = this.lanes.get(jobId) ?? [];
    this.lanes.delete(jobId);
    const target = this.callbacksTo!;
    const items = runs.map((run, index) => ({
      logId: run.logId,
      logDateTim: run.logDateTime,
      handleCode: 500,
      handleMsg:
        index === 0
          ? 'scheduling center kill job. [job running, killed]'
          : 'scheduling center kill job. [job not executed, in the job queue, killed.]',
    }));
    // Sent after the kill's answer, from the executor's callback thread, as XXL-JOB does.
    setTimeout(() => {
      void fetch(`${target.url}api/callback`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json;charset=UTF-8',
          'XXL-JOB-ACCESS-TOKEN': target.accessToken,
        },
        body: JSON.stringify(items),
      }).catch(() => undefined);
    }, 20);
  }

  /** Success with null fields left out: 2.x `{code, content?}`, 3.x `{code, msg: "Success", data?}`. */
  private ok(payload: unknown = null, msg: string | null = null): Record<string, unknown> {
    const answer: Record<string, unknown> = { code: 200 };
    if (msg !== null) answer.msg = msg;
    else if (this.options.generation !== '2.x') answer.msg = 'Success';
    if (payload !== null) answer[this.options.generation === '2.x' ? 'content' : 'data'] = payload;
    return answer;
  }

  private fail(msg: string): Record<string, unknown> {
    return { code: 500, msg };
  }
}

export async function startMimic(options: MimicOptions): Promise<XxlMimic> {
  return new XxlMimic(options).start();
}
