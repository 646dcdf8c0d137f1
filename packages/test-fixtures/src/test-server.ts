/**
 * A small scheduling-server stand-in on loopback for executor tests: it records what the
 * executor sends to `api/registry`, `api/registryRemove` and `api/callback`, and can be told to
 * refuse (answer code 500) or be down (port closed) so spill-and-resend can be exercised.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type HandleCallbackParam, parseCallbackBody, type RegistryParam } from '@tickwheel/protocol';

export interface RecordedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface TestServerOptions {
  accessToken?: string;
  /** Port to listen on; 0 picks a free one. Reuse a port to bring a "down" server back. */
  port?: number;
  /**
   * When set, requests must carry `XXL-JOB-APPNAME` with this value, as an XXL-JOB 3.5 (G4)
   * admin requires; others are answered code 500.
   */
  appName?: string;
}

export class TestServer {
  readonly requests: RecordedRequest[] = [];
  readonly registrations: RegistryParam[] = [];
  readonly removals: RegistryParam[] = [];
  readonly callbacks: HandleCallbackParam[] = [];
  /** When true, `api/callback` answers code 500 (the executor must keep the results). */
  refuseCallbacks = false;
  /** Milliseconds every answer waits before it is sent (to exercise client timeouts). */
  answerDelayMs = 0;
  /** Content type of the answers; real XXL-JOB admins send `text/html;charset=UTF-8`. */
  contentType = 'application/json;charset=UTF-8';
  private server: http.Server | undefined;
  private waiters: Array<() => void> = [];
  port = 0;

  constructor(private readonly options: TestServerOptions = {}) {}

  /** The listening HTTP server while started, for a test that serves more on the same port. */
  get httpServer(): http.Server | undefined {
    return this.server;
  }

  /** Base address as executors are configured with it, with a trailing slash. */
  get address(): string {
    return `http://127.0.0.1:${this.port}/`;
  }

  async start(): Promise<this> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.answer(req, Buffer.concat(chunks).toString('utf8'), res));
    });
    server.keepAliveTimeout = 1_000;
    server.listen(this.options.port ?? this.port, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Closes the port and every open connection: the server is "down". */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Resolves once `predicate` holds, checking after each request; rejects after `timeoutMs`. */
  async waitFor(predicate: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The requests received on one path (`/api/callback`), in arrival order. */
  requestsTo(path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** Waits until a callback for `logId` has been stored and returns it. */
  async callbackFor(logId: number, timeoutMs = 10_000): Promise<HandleCallbackParam> {
    await this.waitFor(
      () => this.callbacks.some((c) => c.logId === logId),
      timeoutMs,
      `callback of logId ${logId}`,
    );
    return this.callbacks.find((c) => c.logId === logId)!;
  }

  private answer(req: http.IncomingMessage, text: string, res: http.ServerResponse) {
    let body: unknown = null;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      body = text;
    }
    const path = req.url ?? '';
    this.requests.push({ path, headers: req.headers, body });
    const send = (code: number, msg: string | null) => {
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': this.contentType });
      res.end(JSON.stringify({ code, msg, content: null, data: null }));
      for (const wake of this.waiters.splice(0)) wake();
    };
    const reply = (code: number, msg: string | null = null) => {
      if (this.answerDelayMs > 0) setTimeout(() => send(code, msg), this.answerDelayMs);
      else send(code, msg);
    };
    const token = this.options.accessToken;
    if (token !== undefined && req.headers['xxl-job-access-token'] !== token) {
      return reply(500, 'The access token is wrong.');
    }
    const appName = this.options.appName;
    if (appName !== undefined && req.headers['xxl-job-appname'] !== appName) {
      return reply(500, 'The app name header is missing or wrong.');
    }
    switch (path) {
      case '/api/registry':
        this.registrations.push(body as RegistryParam);
        return reply(200);
      case '/api/registryRemove':
        this.removals.push(body as RegistryParam);
        return reply(200);
      case '/api/callback': {
        if (this.refuseCallbacks) return reply(500, 'refused by test');
        try {
          this.callbacks.push(...parseCallbackBody(body));
        } catch (err) {
          return reply(500, (err as Error).message);
        }
        return reply(200);
      }
      default:
        return reply(500, `invalid request, uri-mapping(${path}) not found.`);
    }
  }
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  return new TestServer(options).start();
}
