/**
 * Keeps the executor registered with every configured server: `api/registry` at start and every
 * 30 s (a server counts an address unseen for 90 s as dead), `api/registryRemove` on stop. Each
 * registration carries the executor's handler names as of that beat (Tickwheel's optional
 * `handlers` field, which XXL-JOB admins ignore), so a Tickwheel server can offer them when a job
 * is written, and the executor's instance id (Tickwheel's optional `instance` field), so a
 * Tickwheel server sees a restart at the same address at once.
 */
import {
  executorRegistryParam,
  MAX_HANDLER_NAME_LENGTH,
  MAX_REGISTRY_HANDLERS,
  type RegistryParam,
} from '@tickwheel/protocol';
import { type Logger, pino } from 'pino';
import { type Clock, repeatEvery, systemClock } from './clock.js';
import type { ServerCallOutcome, ServerClient } from './server-client.js';

export interface RegistryHeartbeatOptions {
  client: ServerClient;
  appName: string;
  /** The executor's base URL as servers should call it (the advertised address). */
  address: string;
  /** The registered handler names, read at every beat (handlers may be added after start). Default none. */
  handlerNames?: () => Iterable<string>;
  /** This executor's instance id, sent in every registration (`instance`). Default none. */
  instance?: string;
  /** Time between two beats (the executor's `internal.heartbeatIntervalMs`; 30 s by default, as XXL-JOB). */
  intervalMs: number;
  /** The clock the beats are timed on. Default the system clock. */
  clock?: Clock;
  logger?: Logger;
}

const REGISTRY_CALL = 'api/registry';
const REGISTRY_REMOVE_CALL = 'api/registryRemove';

/**
 * @example
 * const heartbeat = new RegistryHeartbeat({ client, appName: 'orders', address: 'http://10.0.0.5:9999/' });
 * heartbeat.start();
 * await heartbeat.stop();
 */
export class RegistryHeartbeat {
  private readonly client: ServerClient;
  private readonly appName: string;
  private readonly address: string;
  private readonly handlerNames: () => Iterable<string>;
  private readonly instance: string | undefined;
  private readonly intervalMs: number;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private stopBeating: (() => void) | undefined;
  private beating: Promise<ServerCallOutcome[]> | undefined;
  /** Last failure message per server, so an outage is logged when it starts, not every beat. */
  private readonly failing = new Map<string, string>();
  /** Handler names already warned about as not sent, so each is logged once. */
  private readonly unsentWarned = new Set<string>();

  constructor(options: RegistryHeartbeatOptions) {
    this.client = options.client;
    this.appName = options.appName;
    this.address = options.address;
    this.handlerNames = options.handlerNames ?? (() => []);
    this.instance = options.instance;
    this.intervalMs = options.intervalMs;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? pino({ name: 'tickwheel-executor' });
  }

  /** Registers with every server now, then every interval; the timer does not keep the process alive. */
  start(): void {
    if (this.stopBeating) return;
    void this.beat();
    this.stopBeating = repeatEvery(this.clock, this.intervalMs, () => void this.beat());
  }

  /**
   * Registers with every server once and reports how each answered. A beat still in flight is
   * shared rather than doubled. Never throws: refusals and unreachable servers are logged.
   */
  beat(): Promise<ServerCallOutcome[]> {
    this.beating ??= this.client.callEach(REGISTRY_CALL, this.registration()).then((outcomes) => {
      this.beating = undefined;
      this.logOutcomes(outcomes);
      return outcomes;
    });
    return this.beating;
  }

  /**
   * Stops beating and asks every server to forget this executor (best effort, each call bounded
   * by the client's timeout); does nothing when not started. A beat in flight is awaited first, so it cannot land after the
   * removal and register the address again.
   */
  async stop(): Promise<ServerCallOutcome[]> {
    if (!this.stopBeating) return [];
    this.stopBeating();
    this.stopBeating = undefined;
    await this.beating;
    const outcomes = await this.client.callEach(
      REGISTRY_REMOVE_CALL,
      executorRegistryParam(this.appName, this.address),
    );
    for (const o of outcomes) {
      if (!o.ok) this.logger.warn({ server: o.address, reason: o.msg }, 'registryRemove was not accepted');
    }
    return outcomes;
  }

  private registration(): RegistryParam {
    return executorRegistryParam(this.appName, this.address, this.sendableHandlerNames(), this.instance);
  }

  /**
   * The names a registration carries, sorted: the protocol bounds them (a server ignores a
   * `handlers` field out of bounds), so a name longer than a job's handler field and the names
   * past the first 1,000 are left out, each logged once. They still run; they are only not
   * offered in the console.
   */
  private sendableHandlerNames(): string[] {
    const names = [...this.handlerNames()].sort();
    const fitting = names.filter((name) => name.length <= MAX_HANDLER_NAME_LENGTH);
    const sent = fitting.slice(0, MAX_REGISTRY_HANDLERS);
    const unsent = names
      .filter((name) => name.length > MAX_HANDLER_NAME_LENGTH)
      .concat(fitting.slice(sent.length));
    const fresh = unsent.filter((name) => !this.unsentWarned.has(name));
    if (fresh.length > 0) {
      for (const name of fresh) this.unsentWarned.add(name);
      this.logger.warn(
        { handlers: fresh.slice(0, 10).map((name) => name.slice(0, 80)), count: fresh.length },
        `handler names not sent with the registration (at most ${MAX_REGISTRY_HANDLERS} names of at most ${MAX_HANDLER_NAME_LENGTH} characters are): they run, but the console does not offer them`,
      );
    }
    return sent;
  }

  private logOutcomes(outcomes: ServerCallOutcome[]): void {
    for (const o of outcomes) {
      const before = this.failing.get(o.address);
      if (o.ok) {
        this.failing.delete(o.address);
        if (before !== undefined) this.logger.info({ server: o.address }, 'registry accepted again');
      } else if (before !== o.msg) {
        this.failing.set(o.address, o.msg);
        this.logger.warn({ server: o.address, reason: o.msg }, 'registry not accepted; retrying every beat');
      }
    }
  }
}
