/**
 * The server's side of the `http-pull` transport (protocol pull.ts): the WebSocket connections
 * pull executors keep to this node, and the calls sent over them.
 *
 * An executor holds one connection, to any node of the cluster. This node keeps its own
 * connections by instance id (a second connection of one instance replaces the first) and
 * records each in `pull_connection`, so that another node that must call the instance finds
 * the holder and relays the call to it (`POST <holder>/api/pull-relay`, authenticated with the
 * installation-wide executor token every node has). A node only ever relays a call it was asked
 * to make; the holder calls its own socket and never relays further.
 *
 * A call to an instance connected nowhere waits a while (`reconnectGraceMs`, 5 s) for it to
 * connect again, here or on another node: a pull executor whose server node restarted or whose
 * network blinked reconnects within its back-off, and a restart must cost it a reconnect, not a
 * run. (Only executors the registry still lists as alive are called at all.)
 *
 * `call()` never throws: an answer frame, or a failure — `connection` when there is no
 * connection (here or on a live node) within the grace, it closed before the answer, or the
 * relay could not be reached; `timeout` when no answer came in time.
 */
import { performance } from 'node:perf_hooks';
import {
  MAX_PULL_FRAME_BYTES,
  type PullAnswerFrame,
  type PullCall,
  parsePullFrame,
  pullInstanceOf,
} from '@tickwheel/protocol';
import type { Logger } from 'pino';
import { Agent } from 'undici';
import type { RawData, WebSocket } from 'ws';
import { safeEqual } from '../security/constant-time.js';
import type { PullConnectionRepository, PullHolder } from '../store/index.js';
import { CallDeadlines } from './call-deadlines.js';

/** How long a call waits for an instance connected nowhere to connect (again). */
const DEFAULT_RECONNECT_GRACE_MS = 5_000;
/** How a holder's relay answer begins when it no longer holds the connection. */
const NOT_CONNECTED_HERE = 'no pull connection of';
/** While it waits, how often it looks for the instance on another node. */
const RECONNECT_POLL_MS = 200;
/** The path of the node-to-node relay, under a node's base URL. */
export const PULL_RELAY_PATH = 'api/pull-relay';
/** The header carrying the installation-wide executor token on a relay. */
export const PULL_RELAY_TOKEN_HEADER = 'Tickwheel-Node-Token';
/** A relayed call waits this much longer than the call itself for the holder's answer. */
const RELAY_MARGIN_MS = 1_000;
/** How long a holder read from the database is used. */
const DEFAULT_HOLDER_CACHE_MS = 3_000;
/** Pings a connection may miss; one more and it is closed. */
const MISSED_PONGS_LIMIT = 2;
/** Close code of a connection replaced by a newer one of the same instance. */
export const CLOSE_REPLACED = 4000;
/** Close code of a connection that missed its pongs. */
export const CLOSE_NO_PONG = 4001;
/** Close code at this node's stop. */
const CLOSE_GOING_AWAY = 1001;

export type PullFailure = 'timeout' | 'connection';

/** What a pull call comes back with: the executor's answer frame, or why there is none. */
export type PullCallResult =
  | { ok: true; frame: PullAnswerFrame }
  | { ok: false; failure: PullFailure; msg: string };

/** What the executor client needs of the pull transport. */
export interface PullTransport {
  /**
   * Sends `call` with `body` (the JSON text of the body the HTTP endpoint takes) to the pull
   * executor at `address` and resolves with its answer, or a failure after `timeoutMs`.
   */
  call(address: string, call: PullCall, body: string, timeoutMs: number): Promise<PullCallResult>;
}

/** The body of `POST api/pull-relay`. */
export interface PullRelayRequest {
  address: string;
  call: PullCall;
  body: unknown;
  timeoutMs: number;
}

export interface PullConnectionsOptions {
  /** This node's id (`cluster_node.node_id`). */
  nodeId: string;
  /** The installation-wide executor token: relays are sent and accepted with it. */
  relayToken: string;
  store: Pick<
    PullConnectionRepository,
    'recordPullConnection' | 'removePullConnection' | 'removeNodePullConnections' | 'findPullHolder'
  >;
  clock: { now(): number };
  /** A node whose `cluster_node` heartbeat is older than this is dead: its rows are ignored. */
  nodeAliveWindowMs: () => number;
  logger: Pick<Logger, 'info' | 'warn' | 'debug' | 'error'>;
  /** How often each connection is pinged (the server's `internal.pullPingIntervalMs`). */
  pingIntervalMs: number;
  /** How long a call waits for an instance connected nowhere to connect (again). Default 5 s. */
  reconnectGraceMs?: number;
  /** How long a holder read from the database is reused. Default 3,000 ms. */
  holderCacheMs?: number;
}

/** One connection of this node. */
interface PullSocket {
  ws: WebSocket;
  instance: string;
  appName: string;
  nextId: number;
  pending: Map<number, (result: PullCallResult) => void>;
  missedPongs: number;
  /** Whether its row is written (else the next ping round writes it). */
  recorded: boolean;
}

interface CachedHolder {
  holder: PullHolder | undefined;
  until: number;
}

export class PullConnections implements PullTransport {
  private readonly sockets = new Map<string, PullSocket>();
  /** Per call timeout, the deadlines (one timer each; calls of one timeout expire in order). */
  private readonly deadlines = new Map<number, CallDeadlines>();
  private readonly holders = new Map<string, CachedHolder>();
  /** Calls waiting for an instance to connect here, woken by `attach`. */
  private readonly awaitingConnection = new Map<string, Set<() => void>>();
  /** Row writes per instance, in order (a close's delete never overtakes the next connect's upsert). */
  private readonly writes = new Map<string, Promise<void>>();
  private readonly relayAgent = new Agent({ connections: 16 });
  private readonly pingTimer: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: PullConnectionsOptions) {
    this.pingTimer = setInterval(() => this.pingRound(), options.pingIntervalMs);
    this.pingTimer.unref();
  }

  /** Instances connected to this node now. */
  get instances(): string[] {
    return [...this.sockets.keys()];
  }

  /** Whether `instance` is connected to this node. */
  holds(instance: string): boolean {
    return this.sockets.has(instance);
  }

  /**
   * Takes a connection that passed authentication: replaces any earlier one of the instance
   * (closed, its calls failed), records this node as its holder and starts reading answers.
   */
  attach(ws: WebSocket, instance: string, appName: string): void {
    if (this.closed) {
      ws.close(CLOSE_GOING_AWAY, 'server stopping');
      return;
    }
    const socket: PullSocket = {
      ws,
      instance,
      appName,
      nextId: 0,
      pending: new Map(),
      missedPongs: 0,
      recorded: false,
    };
    const previous = this.sockets.get(instance);
    this.sockets.set(instance, socket);
    this.holders.delete(instance);
    if (previous !== undefined) {
      this.options.logger.info(
        { instance, app: appName },
        'pull executor reconnected; the older connection is closed',
      );
      previous.ws.close(CLOSE_REPLACED, 'replaced by a newer connection');
      failPending(previous, 'connection', 'pull connection replaced by a newer one');
    } else {
      this.options.logger.info({ instance, app: appName }, 'pull executor connected');
    }
    ws.on('message', (data, isBinary) => this.onMessage(socket, data, isBinary));
    ws.on('pong', () => {
      socket.missedPongs = 0;
    });
    ws.on('error', (err) => this.options.logger.debug({ err, instance }, 'pull connection error'));
    ws.on('close', () => this.onClose(socket));
    this.record(socket);
    const waiting = this.awaitingConnection.get(instance);
    this.awaitingConnection.delete(instance);
    for (const wake of waiting ?? []) wake();
  }

  call(address: string, call: PullCall, body: string, timeoutMs: number): Promise<PullCallResult> {
    const instance = pullInstanceOf(address);
    if (instance === undefined) {
      return Promise.resolve(failure('connection', `${JSON.stringify(address)} is not a pull address`));
    }
    const socket = this.sockets.get(instance);
    if (socket !== undefined) return this.callSocket(socket, call, body, timeoutMs);
    if (this.closed) return Promise.resolve(failure('connection', 'server stopping'));
    return this.callElsewhere(instance, address, call, body, timeoutMs);
  }

  /**
   * The call relayed to the node holding the instance; when no live node holds it, waits up to
   * the reconnect grace for it to connect here (woken at once) or elsewhere (looked up every
   * `RECONNECT_POLL_MS`).
   */
  private async callElsewhere(
    instance: string,
    address: string,
    call: PullCall,
    body: string,
    timeoutMs: number,
  ): Promise<PullCallResult> {
    const graceMs = this.options.reconnectGraceMs ?? DEFAULT_RECONNECT_GRACE_MS;
    const deadline = performance.now() + graceMs;
    for (;;) {
      const relayed = await this.relay(instance, address, call, body, timeoutMs);
      // The holder on record had lost it (it is reconnecting): wait as for one connected nowhere.
      const notThere = relayed !== undefined && !relayed.ok && relayed.msg.startsWith(NOT_CONNECTED_HERE);
      if (relayed !== undefined && !notThere) return relayed;
      const left = deadline - performance.now();
      if (left <= 0 || this.closed) {
        return failure(
          'connection',
          `no pull connection of ${address} on any live server node (waited ${graceMs} ms for it to connect)`,
        );
      }
      await this.connectedHere(instance, Math.min(left, RECONNECT_POLL_MS));
      const socket = this.sockets.get(instance);
      if (socket !== undefined) return this.callSocket(socket, call, body, timeoutMs);
    }
  }

  /** Resolves when `instance` connects to this node, or after `ms`. */
  private connectedHere(instance: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let waiting = this.awaitingConnection.get(instance);
      if (waiting === undefined) {
        waiting = new Set();
        this.awaitingConnection.set(instance, waiting);
      }
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const set = this.awaitingConnection.get(instance);
        set?.delete(wake);
        if (set?.size === 0) this.awaitingConnection.delete(instance);
        resolve();
      }, ms);
      waiting.add(wake);
    });
  }

  /**
   * A relayed call from another node: sent on this node's own connection only (never relayed
   * further), a failure `connection` when the instance is not connected here.
   */
  async serveRelay(request: PullRelayRequest): Promise<PullCallResult> {
    const instance = pullInstanceOf(request.address);
    const socket = instance === undefined ? undefined : this.sockets.get(instance);
    if (socket === undefined) {
      return failure('connection', `${NOT_CONNECTED_HERE} ${request.address} on node ${this.options.nodeId}`);
    }
    return this.callSocket(socket, request.call, JSON.stringify(request.body ?? null), request.timeoutMs);
  }

  /** Whether `token` is the installation-wide executor token (compared in constant time). */
  isRelayToken(token: string): boolean {
    return safeEqual(token, this.options.relayToken);
  }

  /** Calls in flight on this node's connections. */
  get pendingCalls(): number {
    let count = 0;
    for (const socket of this.sockets.values()) count += socket.pending.size;
    return count;
  }

  /**
   * Stops: waits up to `waitMs` for the calls in flight on this node's connections, then closes
   * every connection (the executors reconnect to another node) and deletes this node's rows.
   */
  async close(waitMs = 0): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.pingTimer);
    const until = performance.now() + waitMs;
    while (this.pendingCalls > 0 && performance.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const sockets = [...this.sockets.values()];
    this.sockets.clear();
    for (const socket of sockets) {
      socket.ws.close(CLOSE_GOING_AWAY, 'server stopping');
      failPending(socket, 'connection', 'pull connection closed: server stopping');
      // Sockets that do not finish the closing handshake are cut.
      setTimeout(() => socket.ws.terminate(), 1_000).unref();
    }
    await Promise.allSettled([...this.writes.values()]);
    try {
      await this.options.store.removeNodePullConnections(this.options.nodeId);
    } catch (err) {
      this.options.logger.warn(
        { err },
        "could not delete this node's pull connections; they are ignored once it is dead",
      );
    }
    for (const deadlines of this.deadlines.values()) deadlines.stop();
    await this.relayAgent.close();
  }

  private callSocket(
    socket: PullSocket,
    call: PullCall,
    body: string,
    timeoutMs: number,
  ): Promise<PullCallResult> {
    const id = ++socket.nextId;
    const frame = `{"t":"call","id":${id},"call":"${call}","body":${body}}`;
    if (frame.length > MAX_PULL_FRAME_BYTES / 3 && Buffer.byteLength(frame) > MAX_PULL_FRAME_BYTES) {
      return Promise.resolve(failure('connection', `call larger than ${MAX_PULL_FRAME_BYTES} bytes`));
    }
    return new Promise<PullCallResult>((resolve) => {
      const deadline = this.deadlinesOf(timeoutMs).start();
      const settle = (result: PullCallResult) => {
        if (!socket.pending.delete(id)) return;
        deadline.settle();
        resolve(result);
      };
      socket.pending.set(id, settle);
      deadline.on('abort', () => settle(failure('timeout', `timeout after ${timeoutMs} ms`)));
      socket.ws.send(frame, (err) => {
        if (err) settle(failure('connection', `pull connection failed: ${err.message}`));
      });
    });
  }

  private deadlinesOf(timeoutMs: number): CallDeadlines {
    let deadlines = this.deadlines.get(timeoutMs);
    if (deadlines === undefined) {
      deadlines = new CallDeadlines(timeoutMs);
      this.deadlines.set(timeoutMs, deadlines);
    }
    return deadlines;
  }

  private onMessage(socket: PullSocket, data: RawData, isBinary: boolean): void {
    if (isBinary) return;
    const frame = parsePullFrame(data.toString());
    if (frame === undefined || frame.t !== 'answer') {
      this.options.logger.debug(
        { instance: socket.instance },
        'pull connection sent a frame that is no answer; ignored',
      );
      return;
    }
    socket.pending.get(frame.id)?.({ ok: true, frame });
  }

  private onClose(socket: PullSocket): void {
    failPending(socket, 'connection', 'pull connection closed');
    if (this.sockets.get(socket.instance) !== socket) return;
    this.sockets.delete(socket.instance);
    this.options.logger.info(
      { instance: socket.instance, app: socket.appName },
      'pull executor disconnected',
    );
    this.write(socket.instance, async () => {
      // Only while no newer connection of the instance came to this node meanwhile.
      if (this.sockets.has(socket.instance)) return;
      await this.options.store.removePullConnection(socket.instance, this.options.nodeId);
    });
  }

  /** Writes the socket's row (again at the next ping round when the database refused). */
  private record(socket: PullSocket): void {
    this.write(socket.instance, async () => {
      if (this.sockets.get(socket.instance) !== socket) return;
      await this.options.store.recordPullConnection(
        socket.instance,
        this.options.nodeId,
        this.options.clock.now(),
      );
      socket.recorded = true;
    });
  }

  private write(instance: string, work: () => Promise<void>): void {
    const previous = this.writes.get(instance) ?? Promise.resolve();
    const next = previous.then(work).catch((err) => {
      this.options.logger.warn({ err, instance }, 'could not record the pull connection; trying again');
    });
    this.writes.set(instance, next);
    void next.then(() => {
      if (this.writes.get(instance) === next) this.writes.delete(instance);
    });
  }

  private pingRound(): void {
    for (const socket of this.sockets.values()) {
      if (socket.missedPongs >= MISSED_PONGS_LIMIT) {
        this.options.logger.warn({ instance: socket.instance }, 'pull connection missed two pings; closed');
        socket.ws.close(CLOSE_NO_PONG, 'no pong');
        // Not waiting for a closing handshake a silent peer would never finish.
        socket.ws.terminate();
        continue;
      }
      socket.missedPongs++;
      socket.ws.ping();
      if (!socket.recorded) this.record(socket);
    }
  }

  /**
   * The call sent to the node holding the instance (from the database, cached briefly);
   * undefined when no other live node holds it.
   */
  private async relay(
    instance: string,
    address: string,
    call: PullCall,
    body: string,
    timeoutMs: number,
  ): Promise<PullCallResult | undefined> {
    let holder: PullHolder | undefined;
    try {
      holder = await this.holderOf(instance);
    } catch (err) {
      return failure('connection', `could not look up the pull connection: ${(err as Error).message}`);
    }
    if (holder === undefined || holder.nodeId === this.options.nodeId || holder.address === '') {
      this.holders.delete(instance);
      return undefined;
    }
    const relayBody = `{"address":${JSON.stringify(address)},"call":"${call}","body":${body},"timeoutMs":${timeoutMs}}`;
    try {
      const url = new URL(
        PULL_RELAY_PATH,
        holder.address.endsWith('/') ? holder.address : `${holder.address}/`,
      );
      const response = await this.relayAgent.request({
        origin: url.origin,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', [PULL_RELAY_TOKEN_HEADER]: this.options.relayToken },
        body: relayBody,
        signal: AbortSignal.timeout(timeoutMs + RELAY_MARGIN_MS),
      });
      const text = await response.body.text();
      if (response.statusCode !== 200) {
        this.holders.delete(instance);
        return failure('connection', `relay to node ${holder.nodeId} answered HTTP ${response.statusCode}`);
      }
      const result = relayResultOf(text);
      if (result === undefined) {
        this.holders.delete(instance);
        return failure('connection', `relay to node ${holder.nodeId} gave no answer`);
      }
      // The holder no longer has the connection: ask the database again next time.
      if (!result.ok && result.failure === 'connection') this.holders.delete(instance);
      return result;
    } catch (err) {
      this.holders.delete(instance);
      const e = err as { name?: string; message?: string };
      if (e?.name === 'TimeoutError')
        return failure('timeout', `timeout after ${timeoutMs} ms (relayed to node ${holder.nodeId})`);
      return failure('connection', `relay to node ${holder.nodeId} failed: ${e?.message ?? String(err)}`);
    }
  }

  private async holderOf(instance: string): Promise<PullHolder | undefined> {
    const now = performance.now();
    const cached = this.holders.get(instance);
    if (cached !== undefined && cached.until > now) return cached.holder;
    const holder = await this.options.store.findPullHolder(
      instance,
      this.options.clock.now() - this.options.nodeAliveWindowMs(),
    );
    // Bounded: instances churn slowly; past this the cache starts over.
    if (this.holders.size >= 10_000) this.holders.clear();
    if (holder !== undefined) {
      this.holders.set(instance, {
        holder,
        until: now + (this.options.holderCacheMs ?? DEFAULT_HOLDER_CACHE_MS),
      });
    }
    return holder;
  }
}

function failure(kind: PullFailure, msg: string): PullCallResult {
  return { ok: false, failure: kind, msg };
}

function failPending(socket: PullSocket, kind: PullFailure, msg: string): void {
  for (const settle of [...socket.pending.values()]) settle(failure(kind, msg));
}

/** A relay's answer: the answer frame, or `{t:'failure', failure, msg}`. */
function relayResultOf(text: string): PullCallResult | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (v.t === 'failure' && (v.failure === 'timeout' || v.failure === 'connection')) {
    return failure(v.failure, typeof v.msg === 'string' ? v.msg : v.failure);
  }
  const frame = parsePullFrame(text);
  return frame?.t === 'answer' ? { ok: true, frame } : undefined;
}

/** The relay endpoint's answer for a result. */
export function relayAnswerOf(result: PullCallResult): unknown {
  return result.ok ? result.frame : { t: 'failure', failure: result.failure, msg: result.msg };
}
