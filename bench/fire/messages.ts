/** What the harness and its child processes (server, executors) say to each other over IPC. */

import type { JobLogLayout } from '@tickwheel/executor';

/** The server child's configuration, passed as one JSON argument. */
export interface ServerConfig {
  database: string;
  dataDir: string;
  accessToken: string;
  /** The node's id in a cluster (`--nodes`); default `bench-fire`. */
  nodeId?: string;
  /** The Redis the server writes runs to (`--transport redis`). */
  redis?: string;
}

/** The executor child's configuration, passed as one JSON argument. */
export interface ExecutorConfig {
  /** Every server node: the executor registers with each and calls back any. */
  serverUrls: string[];
  accessToken: string;
  logDir: string;
  /** The executor's `logLayout`. */
  logLayout: JobLogLayout;
  /** How the server reaches the executor: `http` (it listens), `http-pull` (it connects out) or `redis` (its stream). */
  transport: 'http' | 'http-pull' | 'redis';
  /** The Redis of `redis`. */
  redis?: string;
}

/**
 * A child's resource use: its own CPU time and RSS, and how late its event loop ran timers since
 * the previous `usage` answer (a blocked loop delays everything the process does).
 */
export interface Usage {
  type: 'usage';
  cpu: NodeJS.CpuUsage;
  /** The main thread's share of `cpu` (µs), where the platform tells it (Linux); the rest is the process's other threads. */
  mainThreadCpuUs?: number;
  /** Bytes the main thread's heap took in since the process started measuring (usage.ts). */
  allocatedBytes: number;
  /** Time of the main thread's garbage collections since then, µs. */
  gcPauseUs: number;
  rss: number;
  loopDelay: { p99Ms: number; maxMs: number };
}

export type ServerMessage = { type: 'ready'; url: string } | Usage;

/** The window a case measures: fires scheduled in it, and runs started in it (epoch ms, end excluded). */
export interface Window {
  start: number;
  end: number;
}

/** What one executor saw of the window. */
export interface ExecutorStats {
  /** Lateness (run start − scheduled time) of the runs of fires scheduled in the window, as [ms, count] pairs. */
  lateness: Array<[number, number]>;
  /**
   * The same runs' lateness per scheduled second: [second (epoch ms, floor(logDateTime / 1000) · 1000),
   * its [ms, count] pairs], in time order.
   */
  perSecond: Array<[number, Array<[number, number]>]>;
  /** Runs whose start (wall clock) fell in the window, whatever their scheduled time. */
  startsInWindow: number;
  /** Runs of window fires that started before their scheduled time (`lateness` counts them as 0 ms). */
  early: number;
  /** Every run this executor started. */
  runs: number;
}

export type ExecutorMessage =
  | { type: 'ready'; address: string }
  | Usage
  | { type: 'stats'; stats: ExecutorStats };

/** A CPU hog (`--hog`) says only that it is spinning. */
export type HogMessage = { type: 'ready' };

/** What the harness asks a child. */
export type HarnessMessage =
  | { type: 'usage' }
  | { type: 'stats' }
  | { type: 'stop' }
  | { type: 'window'; window: Window };
