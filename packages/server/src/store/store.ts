/** The store: one object holding the database handles and one repository per table family. */
import { type Kysely, sql } from 'kysely';
import { type AlarmChannelRepository, createAlarmChannelRepository } from './alarm-channels.js';
import { type AppRepository, createAppRepository } from './apps.js';
import { type AuditRepository, createAuditRepository } from './audit.js';
import { type ChildFireRepository, createChildFireRepository } from './child-fires.js';
import { type ClusterNodeRepository, createClusterNodeRepository } from './cluster-nodes.js';
import type { StoreConnection } from './connection.js';
import type { DialectName } from './database-url.js';
import { createFireRepository, type FireRepository } from './fires.js';
import { createJobRepository, type JobRepository } from './jobs.js';
import { createLeaseRepository, type LeaseRepository } from './leases.js';
import { createOwedAlarmRepository, type OwedAlarmRepository } from './owed-alarms.js';
import { createPullConnectionRepository, type PullConnectionRepository } from './pull-connections.js';
import { createRegistryRepository, type RegistryRepository } from './registry.js';
import { createReportRepository, type ReportRepository } from './reports.js';
import { createRetryRepository, type RetryRepository } from './retries.js';
import type { Database } from './schema.js';
import { createSessionRepository, type SessionRepository } from './sessions.js';
import { createSettingRepository, type SettingRepository } from './settings.js';
import { createUserRepository, type UserRepository } from './users.js';
import { createWorkflowRepository, type WorkflowRepository } from './workflows.js';

export interface Store {
  readonly dialect: DialectName;
  /** The query builder over the store's pool, for queries no repository has yet. */
  readonly db: Kysely<Database>;
  /** The driver handles (pool or SQLite database) the hot statements and migrations use. */
  readonly connection: StoreConnection;
  readonly apps: AppRepository;
  readonly registry: RegistryRepository;
  readonly jobs: JobRepository;
  readonly fires: FireRepository;
  /** Failure decisions and RETRY records (retries/). */
  readonly retries: RetryRepository;
  /** Child records a success owes, created once (child-jobs/). */
  readonly childFires: ChildFireRepository;
  /** Alarms decided and not yet sent, and the holds of the queues sending them (alarms/). */
  readonly owedAlarms: OwedAlarmRepository;
  readonly leases: LeaseRepository;
  readonly nodes: ClusterNodeRepository;
  /** Which node holds each pull executor's connection (dispatch/pull-connections.ts). */
  readonly pullConnections: PullConnectionRepository;
  readonly users: UserRepository;
  readonly sessions: SessionRepository;
  readonly audit: AuditRepository;
  readonly settings: SettingRepository;
  readonly reports: ReportRepository;
  readonly alarmChannels: AlarmChannelRepository;
  /** Workflows and their runs (workflows/). */
  readonly workflows: WorkflowRepository;
  /** One trivial query: resolves when the database answers (readiness probes). */
  ping(): Promise<void>;
  /** Closes the pool (or the SQLite database). */
  close(): Promise<void>;
}

export function createStore(connection: StoreConnection): Store {
  let closed: Promise<void> | undefined;
  return {
    dialect: connection.dialect,
    db: connection.db,
    connection,
    apps: createAppRepository(connection),
    registry: createRegistryRepository(connection),
    jobs: createJobRepository(connection),
    fires: createFireRepository(connection),
    retries: createRetryRepository(connection),
    childFires: createChildFireRepository(connection),
    owedAlarms: createOwedAlarmRepository(connection),
    leases: createLeaseRepository(connection),
    nodes: createClusterNodeRepository(connection),
    pullConnections: createPullConnectionRepository(connection),
    users: createUserRepository(connection),
    sessions: createSessionRepository(connection),
    audit: createAuditRepository(connection),
    settings: createSettingRepository(connection),
    reports: createReportRepository(connection),
    alarmChannels: createAlarmChannelRepository(connection),
    workflows: createWorkflowRepository(connection),
    async ping() {
      await sql`SELECT 1`.execute(connection.db);
    },
    close() {
      // Kysely's destroy ends the pg pool, the mysql2 pool or the SQLite database it was given.
      closed ??= (async () => {
        if (connection.dialect === 'sqlite') {
          await connection.hot?.close();
          await connection.reader?.close();
          await connection.checkpointer?.close();
        }
        try {
          await connection.db.destroy();
        } catch (err) {
          // mysql2 queues a connection's quit behind its handshake: one still connecting when the
          // pool ends (a stalled network) fails its quit with its connect error, and the pool's
          // end with it. That connection is gone either way; the close did what it had to.
          if (!(connection.dialect === 'mysql' && isFatalConnectionError(err))) throw err;
        }
      })();
      return closed;
    },
  };
}

/** An error mysql2 marks fatal: the connection it came from is closed, whatever it was doing. */
function isFatalConnectionError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { fatal?: unknown }).fatal === true;
}
