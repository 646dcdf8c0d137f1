/** The store's public surface: what the planner, dispatcher, monitors, API and CLI use. */
export { type AccountTransaction, inAccountTransaction } from './account-transaction.js';
export type { AlarmChannelPatch, AlarmChannelRepository, NewAlarmChannel } from './alarm-channels.js';
export type { AppCredentialRow, AppFilter, AppPatch, AppRepository, NewApp } from './apps.js';
export type { AuditFilter, AuditRepository, NewAuditEntry } from './audit.js';
export type { ChildFireRepository, OwedChildrenQuery } from './child-fires.js';
export type { ClusterNodeRepository, NodeHeartbeat } from './cluster-nodes.js';
export { openStore, type StoreOptions } from './connect.js';
export type { StoreConnection } from './connection.js';
export { type ConnectionErrorHandler, warnConnectionErrors } from './connection-faults.js';
export type { DialectName } from './database-url.js';
export {
  CHILDREN_STATUS,
  canTransition,
  DISPATCHABLE_STATUSES,
  FINAL_STATUSES,
  FINISHABLE_STATUSES,
  FIRE_STATUSES,
  type FinishedStatus,
  type FireStatus,
  isFinalStatus,
  statusForHandleCode,
} from './fire-status.js';
export type {
  DispatchedRun,
  FireDeletion,
  FireFilter,
  FireRepository,
  HotStage,
  HotStatementObserver,
  LostRunQuery,
  NewFire,
  OtherInstanceRunQuery,
  PendingFireQuery,
  RestartedRunQuery,
  UnconfirmedRunQuery,
} from './fires.js';
export type {
  ClaimedFire,
  ClaimRequest,
  ClaimResult,
  FirePlan,
  OwnedShard,
  PlannedFire,
  PlannedFireStatus,
} from './hot/claim.js';
export type { DispatchMark } from './hot/dispatch-marks.js';
export { type DueFireRows, loadDueFires } from './hot/due-load.js';
export type { FinishedFire, FireResult } from './hot/finish.js';
export type { SendFenceAnswer, SendFenceRequest } from './hot/send-fence.js';
export {
  GLUE_VERSIONS_KEPT,
  type GlueVersion,
  insertGlueVersion,
  JOB_DEFAULTS,
  type JobFilter,
  type JobPatch,
  type JobRepository,
  type NewJob,
} from './jobs.js';
export {
  DATABASE_NOW_MS_SQL,
  databaseNowMs,
  type HeldLease,
  type LeaseRepository,
  MAINTENANCE_LEASE,
  shardLeaseName,
} from './leases.js';
export { migrate } from './migrate.js';
export {
  ALARM_OWED,
  type OwedAlarm,
  type OwedAlarmQuery,
  type OwedAlarmRepository,
} from './owed-alarms.js';
export type { PullConnectionRepository, PullHolder } from './pull-connections.js';
export type { RegisteredHandlers, RegistryEntry, RegistryRepository } from './registry.js';
export type { AppDayFigures, ReportRepository } from './reports.js';
export {
  type DueRetryQuery,
  RETRYABLE_STATUSES,
  type RetryRepository,
  type UndecidedFailureQuery,
} from './retries.js';
export type * from './schema.js';
export type { NewSession, SessionRepository } from './sessions.js';
export type { SettingRepository } from './settings.js';
export type { Store } from './store.js';
export type { NewApiToken, NewUser, UserPatch, UserRepository } from './users.js';
export type {
  NewWorkflowRun,
  RunCommit,
  StartedRun,
  StartRunRequest,
  WorkflowFields,
  WorkflowFilter,
  WorkflowFire,
  WorkflowPatch,
  WorkflowRepository,
  WorkflowRunFilter,
} from './workflows.js';
