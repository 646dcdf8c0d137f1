/**
 * Keeps the executor registered with every configured server: `api/registry` at start and every
 * 30 s (a server counts an address unseen for 90 s as dead), `api/registryRemove` on stop.
 */
import { BEAT_INTERVAL_MS, executorRegistryParam, type RegistryParam } from '@tickwheel/protocol';
import { type Logger, pino } from 'pino';
import type { ServerCallOutcome, ServerClient } from './server-client.js';

export interface RegistryHeartbeatOptions {
  client: ServerClient;
  appName: string;
  /** The executor's base URL as servers should call it (the advertised address). */
  address: string;
  /** Default 30 s, as XXL-JOB. */
  intervalMs?: number;
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
  private readonly param: RegistryParam;
  private readonly intervalMs: number;
  private readonly logger: Logger;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<ServerCallOutcome[]> | undefined;
  /** Last failure message per server, so an outage is logged when it starts, not every beat. */
  private readonly failing = new Map<string, string>();

  constructor(options: RegistryHeartbeatOptions) {
    this.client = options.client;
    this.param = executorRegistryParam(options.appName, options.address);
    this.intervalMs = options.intervalMs ?? BEAT_INTERVAL_MS;
    this.logger = options.logger ?? pino({ name: 'tickwheel-executor' });
  }

  /** Registers with every server now, then every interval; the timer does not keep the process alive. */
  start(): void {
    if (this.timer) return;
    void this.beat();
    this.timer = setInterval(() => void this.beat(), this.intervalMs);
    this.timer.unref();
  }

  /**
   * Registers with every server once and reports how each answered. A beat still in flight is
   * shared rather than doubled. Never throws: refusals and unreachable servers are logged.
   */
  beat(): Promise<ServerCallOutcome[]> {
    this.beating ??= this.client.callEach(REGISTRY_CALL, this.param).then((outcomes) => {
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
    if (!this.timer) return [];
    clearInterval(this.timer);
    this.timer = undefined;
    await this.beating;
    const outcomes = await this.client.callEach(REGISTRY_REMOVE_CALL, this.param);
    for (const o of outcomes) {
      if (!o.ok) this.logger.warn({ server: o.address, reason: o.msg }, 'registryRemove was not accepted');
    }
    return outcomes;
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
