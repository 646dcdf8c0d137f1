/** What the chaos harness and its child processes (server nodes, executors) pass each other. */

/** A server node's configuration, passed as one JSON argument. */
export interface NodeConfig {
  nodeId: string;
  port: number;
  /** The database URL through this node's proxy. */
  database: string;
  dataDir: string;
  accessToken: string;
  /** Added to this node's clock (the `clock` scenario); 0 for the others. */
  clockOffsetMs: number;
}

/** An executor's configuration, passed as one JSON argument. */
export interface ExecutorNodeConfig {
  name: string;
  appName: string;
  port: number;
  serverAddresses: string[];
  accessToken: string;
  logDir: string;
  /** Where every run is appended (journal.ts). */
  journal: string;
  /** How long the `slow` handler takes. */
  slowMs: number;
}

export type ChildMessage = { type: 'ready'; url: string };
