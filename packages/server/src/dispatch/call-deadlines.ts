/**
 * Call timeouts without a timer and an AbortController per call. Measured on undici 7, those
 * two cost 10–13 µs of CPU per call — a quarter of the per-fire budget (DESIGN.md). Every call
 * of one client has the same timeout, so deadlines expire in the order calls started: a FIFO
 * queue with one timer armed for its head is enough.
 *
 * Each call gets a {@link CallDeadline}, whose `signal` undici accepts as a request signal: an
 * EventEmitter-style object (`reason`, `on`/`once`/`removeListener` of `abort`). It must not have
 * an `aborted` key: undici 8 takes any object with one for a real AbortSignal and hands it to
 * Node's `addAbortListener`, which refuses it. So the deadline says `timedOut` instead.
 */
import type { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';

export class CallDeadline {
  timedOut = false;
  reason: Error | undefined;
  /** Set once the call has ended, so an expiry that comes later does nothing. */
  settled = false;
  private listener: (() => void) | null = null;

  constructor(readonly expiresAt: number) {}

  /** This deadline as undici's request `signal` (its types name only EventEmitter). */
  get signal(): EventEmitter {
    return this as unknown as EventEmitter;
  }

  on(_event: 'abort', listener: () => void): this {
    this.listener = listener;
    return this;
  }

  once(event: 'abort', listener: () => void): this {
    return this.on(event, listener);
  }

  removeListener(_event: 'abort', _listener: () => void): this {
    this.listener = null;
    return this;
  }

  /** The call ended (answered or failed); its deadline no longer matters. */
  settle(): void {
    this.settled = true;
    this.listener = null;
  }

  expire(): void {
    if (this.settled) return;
    this.timedOut = true;
    this.reason = new Error('call timed out');
    const listener = this.listener;
    this.listener = null;
    listener?.();
  }
}

export class CallDeadlines {
  private readonly queue: CallDeadline[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly timeoutMs: number) {}

  /** A deadline `timeoutMs` from now; `settle()` it when the call ends. */
  start(): CallDeadline {
    const deadline = new CallDeadline(performance.now() + this.timeoutMs);
    this.queue.push(deadline);
    if (this.timer === undefined) this.arm();
    return deadline;
  }

  /** Stops the timer; deadlines not expired yet never will. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.queue.length = 0;
    this.head = 0;
  }

  private arm(): void {
    this.dropSettledHead();
    const next = this.queue[this.head];
    if (next === undefined) {
      this.timer = undefined;
      return;
    }
    const wait = Math.max(0, Math.ceil(next.expiresAt - performance.now()));
    this.timer = setTimeout(() => this.expireDue(), wait);
    // Pending deadlines must not keep a process alive that has nothing else to do.
    this.timer.unref();
  }

  private expireDue(): void {
    const now = performance.now();
    while (this.head < this.queue.length) {
      const deadline = this.queue[this.head]!;
      if (!deadline.settled && deadline.expiresAt > now) break;
      this.head += 1;
      deadline.expire();
    }
    this.compact();
    this.arm();
  }

  /** Settled calls at the head need no timer; skip them so the timer waits for a live one. */
  private dropSettledHead(): void {
    while (this.head < this.queue.length && this.queue[this.head]!.settled) this.head += 1;
    this.compact();
  }

  private compact(): void {
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }
}
