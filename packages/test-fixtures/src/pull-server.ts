/**
 * The test server with a stand-in for the server's `api/pull` WebSocket endpoint on the same
 * port: it checks the upgrade's token and app (refusing with 401 and a ReturnT body, as the
 * contract says), keeps every connection the executor opens, and sends calls and waits for their
 * answers the way a scheduling server does over an http-pull executor's connection.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { PULL_PATH, type PullAnswerFrame, type PullCall, parsePullFrame } from '@tickwheel/protocol';
import type WebSocket from 'ws';
import { WebSocketServer } from 'ws';
import { TestServer, type TestServerOptions } from './test-server.js';

export interface PullConnectionRecord {
  socket: WebSocket;
  headers: http.IncomingHttpHeaders;
  openedAt: number;
  closedAt: number | undefined;
}

export interface PullTestServerOptions extends TestServerOptions {
  /** The token the upgrade must carry; default `accessToken`. */
  pullToken?: string;
}

export class PullTestServer extends TestServer {
  /** Every connection upgraded, in order, open or closed. */
  readonly connections: PullConnectionRecord[] = [];
  /** Every upgrade request, refused ones included. */
  readonly upgrades: http.IncomingHttpHeaders[] = [];
  /** When true, each new connection is closed as soon as it opens. */
  closeOnOpen = false;
  private readonly wss = new WebSocketServer({ noServer: true });
  private nextId = 1;
  private readonly pending = new Map<number, (frame: PullAnswerFrame) => void>();

  constructor(private readonly pullOptions: PullTestServerOptions = {}) {
    super(pullOptions);
  }

  override async start(): Promise<this> {
    await super.start();
    this.httpServer!.on('upgrade', (req, socket, head) => this.upgrade(req, socket, head));
    return this;
  }

  /** Closes every pull connection too: the server is "down". */
  override async stop(): Promise<void> {
    for (const c of this.connections) c.socket.terminate();
    await super.stop();
  }

  /** The connection open last, if it is still open. */
  get openConnection(): PullConnectionRecord | undefined {
    const last = this.connections.at(-1);
    return last && last.closedAt === undefined ? last : undefined;
  }

  /** Waits for an open connection (the `count`-th one at least) and returns it. */
  async connection(count = 1, timeoutMs = 10_000): Promise<PullConnectionRecord> {
    await this.waitUntil(
      () => this.connections.length >= count && this.openConnection !== undefined,
      timeoutMs,
      `pull connection ${count}`,
    );
    return this.openConnection!;
  }

  /** Sends one call over the open connection and resolves with its answer frame. */
  async call(call: PullCall | string, body: unknown, timeoutMs = 10_000): Promise<PullAnswerFrame> {
    const connection = await this.connection();
    const id = this.nextId++;
    const answered = new Promise<PullAnswerFrame>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no answer to ${call} (id ${id}) in ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, (frame) => {
        clearTimeout(timer);
        resolve(frame);
      });
    });
    connection.socket.send(JSON.stringify({ t: 'call', id, call, body }));
    return answered;
  }

  /** Polls `predicate` every 10 ms; throws after `timeoutMs`. */
  async waitUntil(predicate: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  private upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    this.upgrades.push(req.headers);
    const refusal = this.refusal(req);
    if (refusal !== undefined) {
      const text = JSON.stringify({ code: 500, msg: refusal, content: null, data: null });
      socket.end(
        `HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
      );
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const record: PullConnectionRecord = {
        socket: ws,
        headers: req.headers,
        openedAt: Date.now(),
        closedAt: undefined,
      };
      this.connections.push(record);
      ws.on('close', () => {
        record.closedAt = Date.now();
      });
      ws.on('message', (data) => {
        const frame = parsePullFrame(String(data));
        if (frame?.t === 'answer') this.pending.get(frame.id)?.(frame);
        if (frame) this.pending.delete(frame.id);
      });
      if (this.closeOnOpen) ws.close(1012, 'test server closes at once');
    });
  }

  private refusal(req: http.IncomingMessage): string | undefined {
    if (req.url !== `/${PULL_PATH}`) return `invalid request, uri-mapping(${req.url}) not found.`;
    const token = this.pullOptions.pullToken ?? this.pullOptions.accessToken;
    if (token !== undefined && req.headers['xxl-job-access-token'] !== token) {
      return 'The access token is wrong.';
    }
    if (!req.headers['xxl-job-appname']) return 'The app name header is missing.';
    return undefined;
  }
}

export async function startPullTestServer(options: PullTestServerOptions = {}): Promise<PullTestServer> {
  return new PullTestServer(options).start();
}
