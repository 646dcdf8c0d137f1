/**
 * The executor's side of the `http-pull` transport: a WebSocket it opens to a server's
 * `api/pull` and keeps open, over which the server sends the calls of PROTOCOL.md as frames
 * (`@tickwheel/protocol`'s pull.ts holds the contract). Each call is answered by the same
 * answerer as the HTTP endpoint, so both transports answer alike by construction.
 *
 * The connection is only a way in for calls. Runs belong to the lanes and report by callback
 * over HTTP, so a connection that drops never fails a run: an answer due on a closed connection
 * is dropped (the server times the call out, and a `run` it re-sends meets the accepted-logId
 * journal as a repeat).
 */
import type { IncomingMessage } from 'node:http';
import {
  ACCESS_TOKEN_HEADER,
  APP_NAME_HEADER,
  INSTANCE_HEADER,
  MAX_PULL_FRAME_BYTES,
  MAX_RUN_BATCH,
  PULL_PATH,
  PULL_RECONNECT_MAX_MS,
  PULL_RECONNECT_MIN_MS,
  type PullAnswerFrame,
  type PullCall,
  parsePullFrame,
  returnFail,
  WireMessages,
} from '@tickwheel/protocol';
import type { Logger } from 'pino';
import WebSocket from 'ws';
import type { CallAnswerer } from './calls.js';

export interface PullConnectionOptions {
  /** Base addresses of the servers (`http://host:8080/`); connected one at a time, round-robin. */
  serverAddresses: readonly string[];
  /** Sent in `XXL-JOB-ACCESS-TOKEN`; empty when undefined (an `insecure` executor). */
  accessToken: string | undefined;
  /** Sent in `XXL-JOB-APPNAME`. */
  appName: string;
  /** Sent in `Tickwheel-Instance`: the server reaches `pull://<instance>/` through this connection. */
  instance: string;
  answerCall: CallAnswerer;
  /** Time the connection and its upgrade may take. */
  handshakeTimeoutMs: number;
  /**
   * A connection that hears nothing from its server (no ping, no frame) for this long is taken
   * for dead and replaced: a half-open TCP connection (a NAT that forgot it) would otherwise
   * leave the executor unreachable while it believes itself connected.
   */
  silenceMs: number;
  logger: Logger;
}

/** A connection that stayed open this long was a working one: the back-off starts over after it. */
const STABLE_CONNECTION_MS = PULL_RECONNECT_MAX_MS;
/** How much of a refused upgrade's body is read for the server's reason. */
const MAX_REFUSAL_BODY_BYTES = 64 * 1024;
/** How long `stop()` waits for the server to acknowledge the close before cutting the socket. */
const CLOSE_GRACE_MS = 1_000;

/** The answer frame's announcements, the HTTP endpoint's `Tickwheel-Run-Batch` and `Tickwheel-Kill`. */
const ANNOUNCEMENTS = { runBatch: MAX_RUN_BATCH, killByLogId: true } as const;

/** The WebSocket URL of a server's pull endpoint: `http://host:8080/ctx/` → `ws://host:8080/ctx/api/pull`. */
export function pullUrl(serverAddress: string): string {
  const url = new URL(PULL_PATH, serverAddress);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}

/**
 * @example
 * const connection = new PullConnection({ serverAddresses: ['http://scheduler:8080/'], accessToken,
 *   appName: 'orders', instance, answerCall, handshakeTimeoutMs: 3_000, silenceMs: 45_000, logger });
 * connection.start();
 * await connection.stop();
 */
export class PullConnection {
  private readonly options: PullConnectionOptions;
  private readonly headers: Record<string, string>;
  /** Index into serverAddresses of the server connected (or tried) last. */
  private serverIndex = 0;
  /** Consecutive connections that failed or did not stay up; sets the next back-off. */
  private failures = 0;
  private socket: WebSocket | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private silenceTimer: NodeJS.Timeout | undefined;
  /** The reason of the last failure logged as a warning, so an outage is not logged every retry. */
  private lastWarned: string | undefined;
  private stopped = false;

  constructor(options: PullConnectionOptions) {
    this.options = options;
    this.headers = {
      [ACCESS_TOKEN_HEADER]: options.accessToken ?? '',
      [APP_NAME_HEADER]: options.appName,
      [INSTANCE_HEADER]: options.instance,
    };
  }

  /** Connects to the first server now; from then on keeps a connection open until `stop()`. */
  start(): void {
    if (this.socket || this.stopped) return;
    this.connect();
  }

  /** Closes the connection and stops reconnecting; calls in flight go on, their answers dropped. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.silenceTimer);
    const socket = this.socket;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
    else socket.close(1001, 'executor stopping');
    const timer = setTimeout(() => socket.terminate(), CLOSE_GRACE_MS);
    await closed;
    clearTimeout(timer);
  }

  private connect(): void {
    const server = this.options.serverAddresses[this.serverIndex]!;
    const url = pullUrl(server);
    const socket = new WebSocket(url, {
      headers: this.headers,
      maxPayload: MAX_PULL_FRAME_BYTES,
      handshakeTimeout: this.options.handshakeTimeoutMs,
    });
    this.socket = socket;
    let openedAt: number | undefined;
    let failure: string | undefined;

    socket.on('unexpected-response', (_req, res) => {
      // Handled here, the upgrade is not aborted by ws: read why, then abort it ourselves.
      readRefusal(res).then((reason) => {
        failure = reason;
        socket.terminate();
      });
    });
    socket.on('open', () => {
      openedAt = Date.now();
      if (this.stopped) {
        socket.close(1001, 'executor stopping');
        return;
      }
      this.lastWarned = undefined;
      this.listenForSilence(socket);
      this.options.logger.info({ server, instance: this.options.instance }, 'pull connection open');
    });
    socket.on('ping', () => this.listenForSilence(socket));
    socket.on('message', (data, isBinary) => {
      this.listenForSilence(socket);
      this.receive(socket, data as Buffer, isBinary);
    });
    socket.on('error', (err) => {
      failure ??= err.message;
    });
    socket.on('close', (code, reason) => {
      if (this.socket === socket) this.socket = undefined;
      clearTimeout(this.silenceTimer);
      if (this.stopped) return;
      if (openedAt === undefined) {
        this.failures += 1;
        this.warnOnce(
          { server, reason: failure ?? 'closed' },
          'pull connection failed; retrying with back-off',
        );
      } else {
        if (Date.now() - openedAt >= STABLE_CONNECTION_MS) this.failures = 0;
        else this.failures += 1;
        this.options.logger.warn(
          { server, code, reason: failure ?? (reason.toString('utf8') || null) },
          'pull connection closed; reconnecting',
        );
      }
      this.reconnectLater();
    });
  }

  /** Connects to the next server after the back-off: doubling from the minimum, capped, jittered. */
  private reconnectLater(): void {
    const { serverAddresses } = this.options;
    this.serverIndex = (this.serverIndex + 1) % serverAddresses.length;
    const delay = reconnectDelay(this.failures);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  /** (Re)arms the silence timer of the open connection `socket`. */
  private listenForSilence(socket: WebSocket): void {
    clearTimeout(this.silenceTimer);
    if (this.stopped || socket !== this.socket) return;
    this.silenceTimer = setTimeout(() => {
      this.options.logger.warn(
        { silenceMs: this.options.silenceMs },
        'pull connection silent (no ping from the server); reconnecting',
      );
      socket.terminate();
    }, this.options.silenceMs);
  }

  private receive(socket: WebSocket, data: Buffer, isBinary: boolean): void {
    if (isBinary) {
      this.options.logger.warn({ bytes: data.length }, 'pull frame ignored: binary frames are not calls');
      return;
    }
    const text = data.toString('utf8');
    const frame = parsePullFrame(text);
    if (frame?.t === 'call') {
      this.answer(socket, frame.id, frame.call, () => frame.body);
      return;
    }
    const unknown = unknownCall(text);
    if (unknown) {
      // As the HTTP endpoint answers a path it does not serve, so the server's call does not hang.
      this.send(socket, unknown.id, unknown.call, returnFail(WireMessages.uriNotFound(`/${unknown.call}`)));
      return;
    }
    this.options.logger.warn({ frame: text.slice(0, 200) }, 'pull frame ignored: not a call');
  }

  /** Answers one call when its answer is ready; calls do not wait for each other. */
  private answer(socket: WebSocket, id: number, call: PullCall, readBody: () => unknown): void {
    void this.options.answerCall(call, readBody).then((answer) => this.send(socket, id, call, answer));
  }

  private send(socket: WebSocket, id: number, call: string, answer: unknown): void {
    if (socket.readyState !== WebSocket.OPEN) {
      this.options.logger.debug({ id, call }, 'pull answer dropped: its connection is closed');
      return;
    }
    const frame: PullAnswerFrame = { t: 'answer', id, answer, ...ANNOUNCEMENTS };
    socket.send(JSON.stringify(frame), (err) => {
      if (err) this.options.logger.debug({ err, id, call }, 'pull answer not sent');
    });
  }

  /** A warning for a new reason, a debug line for the same one again (a long outage logs once). */
  private warnOnce(fields: { server: string; reason: string }, message: string): void {
    if (fields.reason === this.lastWarned) {
      this.options.logger.debug(fields, message);
      return;
    }
    this.lastWarned = fields.reason;
    this.options.logger.warn(fields, message);
  }
}

/** The delay before the next connection after `failures` consecutive failed ones. */
export function reconnectDelay(failures: number, random: () => number = Math.random): number {
  const ceiling = Math.min(PULL_RECONNECT_MAX_MS, PULL_RECONNECT_MIN_MS * 2 ** Math.max(0, failures - 1));
  // Between half and all of the ceiling, so executors cut off together do not return together.
  return Math.max(PULL_RECONNECT_MIN_MS, Math.round(ceiling * (0.5 + random() / 2)));
}

/**
 * The server's reason for refusing the upgrade (`HTTP 401: The access token is wrong.`), from the
 * ReturnT body it answers or else the body's first line.
 */
async function readRefusal(res: IncomingMessage): Promise<string> {
  const status = `HTTP ${res.statusCode ?? '?'}`;
  let text = '';
  try {
    for await (const chunk of res) {
      text += (chunk as Buffer).toString('utf8');
      if (text.length > MAX_REFUSAL_BODY_BYTES) break;
    }
  } catch {
    // The status alone still says the server refused.
  }
  let msg: unknown;
  try {
    msg = (JSON.parse(text) as { msg?: unknown })?.msg;
  } catch {
    msg = undefined;
  }
  const reason = typeof msg === 'string' && msg !== '' ? msg : text.trim().split('\n', 1)[0]?.slice(0, 200);
  return reason
    ? `server refused the connection (${status}): ${reason}`
    : `server refused the connection (${status})`;
}

/** A call frame whose call name this executor does not know, for an answer saying so. */
function unknownCall(text: string): { id: number; call: string } | undefined {
  try {
    const value = JSON.parse(text) as Record<string, unknown> | null;
    if (value?.t !== 'call' || !Number.isSafeInteger(value.id) || typeof value.call !== 'string')
      return undefined;
    return { id: value.id as number, call: value.call };
  } catch {
    return undefined;
  }
}
