/**
 * The tables as Kysely sees them: one logical schema, the same on SQLite, PostgreSQL and
 * MySQL/MariaDB (migrations/<dialect>/). Column meanings follow XXL-JOB's tables
 * (xxl_job_group, xxl_job_registry, xxl_job_info, xxl_job_logglue, xxl_job_log, ...); every
 * time column is epoch milliseconds.
 */
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { FireStatus } from './fire-status.js';

/** An executor app (XXL-JOB's "executor group"). */
export interface AppGroupTable {
  id: Generated<number>;
  /** The app name executors register under; unique. */
  app_name: string;
  title: string;
  /** AUTO: addresses come from the registry; MANUAL: `address_list` as typed by a user. */
  address_type: 'AUTO' | 'MANUAL';
  /** Comma-separated executor addresses (MANUAL, or the last AUTO refresh). */
  address_list: string | null;
  created_at: number;
  updated_at: number;
  /** The app's own executor token; NULL: the app uses the installation token (compatibility mode). */
  access_token: string | null;
  /** The token the last rotation replaced (NULL: the installation token), accepted until `previous_token_until`. */
  previous_access_token: string | null;
  /** Until when the replaced token is accepted; NULL: no overlap. */
  previous_token_until: number | null;
  /** Where the app was imported from, as the importer wrote it (migration 0012); NULL: made here. */
  origin: string | null;
}

/** One executor address heartbeat. */
export interface RegistryTable {
  id: Generated<number>;
  /** Always EXECUTOR on the wire today (REGISTRY_GROUP_EXECUTOR). */
  registry_group: string;
  /** The app name. */
  registry_key: string;
  /** The executor's address (base URL). */
  registry_value: string;
  /** The protocol generation the executor speaks: G2 | G3 | G4. */
  protocol: string;
  updated_at: number;
  /**
   * The handler names the executor sent (Tickwheel's `handlers` registry field) as a JSON array;
   * NULL when it sent none. Read only by `listAliveHandlers`: it can be large.
   */
  handlers: string | null;
  /**
   * The instance id the executor sent in its last registration (Tickwheel's `instance` field, new
   * at each start of its process); NULL when it sent none (XXL-JOB executors).
   */
  instance: string | null;
  /** Which token the executor registered with: the first 16 hex digits of its SHA-256 (`tokenIdOf`). */
  token_id: string | null;
}

/** A job (XXL-JOB's xxl_job_info). */
export interface JobTable {
  id: Generated<number>;
  app_id: number;
  /** What XXL-JOB calls job_desc. */
  name: string;
  author: string;
  alarm_email: string;
  schedule_type: string;
  schedule_conf: string;
  /** IANA time zone the CRON expression is read in. */
  time_zone: string;
  misfire_strategy: string;
  executor_route_strategy: string;
  executor_handler: string;
  executor_param: string;
  executor_block_strategy: string;
  /** Seconds; 0 = no timeout. */
  executor_timeout: number;
  executor_fail_retry_count: number;
  glue_type: string;
  glue_source: string;
  glue_remark: string;
  glue_updated_at: number;
  /** Comma-separated ids of jobs triggered when a run of this job succeeds. */
  child_job_ids: string;
  /** FIXED | EXPONENTIAL: how the wait before each retry grows (retries/backoff.ts). */
  retry_backoff_strategy: string;
  /** Wait before the first retry (FIXED: before every retry). */
  retry_delay_seconds: number;
  /** EXPONENTIAL: the longest wait. */
  retry_max_delay_seconds: number;
  /** EVERY_FAILURE | FINAL_FAILURE (only when no retry is left). */
  alarm_on: string;
  /** Comma-separated ids of the alarm channels a failure of this job is sent through. */
  alarm_channel_ids: string;
  /** 1 = scheduled, 0 = stopped. */
  trigger_status: number;
  /** When the planner fires it next; null = nothing to fire (NONE, ONCE done, FIX_DELAY running). */
  next_fire_at: number | null;
  /** When the last run ended; FIX_DELAY schedules from it. */
  last_run_end_at: number | null;
  /**
   * Where the job was imported from, as the importer wrote it (e.g. `xxl-job
   * mysql://db:3306/xxl_job #12`; migration 0012); NULL for a job made here.
   */
  origin: string | null;
  created_at: number;
  updated_at: number;
}

/** One saved version of a job's script (XXL-JOB's xxl_job_logglue). */
export interface JobGlueTable {
  id: Generated<number>;
  job_id: number;
  glue_type: string;
  glue_source: string;
  glue_remark: string;
  created_at: number;
}

/**
 * A fire record (XXL-JOB's xxl_job_log): one dispatch of one job, its outcome and its result.
 * The planner's claimed fire has `claim_job_id = job_id`; a broadcast's per-executor records and
 * retry records have `claim_job_id = NULL` and point at the claimed fire through
 * `parent_fire_id`. UNIQUE (job_id, scheduled_at, claim_job_id) (migration 0016) is the "one
 * record per (job, scheduled time)" guard: NULLs are distinct in unique indexes on all three
 * databases, so children pass.
 */
export interface FireTable {
  id: Generated<number>;
  job_id: number;
  app_id: number;
  parent_fire_id: number | null;
  claim_job_id: number | null;
  scheduled_at: number;
  trigger_type: string;
  /** When the dispatcher sent `run` (or gave up). */
  trigger_at: number | null;
  executor_address: string | null;
  executor_handler: string;
  executor_param: string | null;
  shard_index: number;
  shard_total: number;
  /** ReturnT code of the dispatch: 200 accepted, 500 refused or unreachable. */
  trigger_code: number | null;
  trigger_msg: string | null;
  /**
   * The executor instance that accepted the run (its `Tickwheel-Instance` answer header); NULL
   * when it announced none (XXL-JOB executors, records from before migration 0009).
   */
  executor_instance?: string | null;
  /**
   * The executor the send fence admitted a run of this record to, written before the run goes
   * out (migration 0010); a re-send goes there again. NULL until then.
   */
  sent_to?: string | null;
  handle_at: number | null;
  /** Handle code of the result: 200 success, 500 failure, 502 timeout. */
  handle_code: number | null;
  handle_msg: string | null;
  status: FireStatus;
  /** Retries this fire may still get (XXL-JOB's executor_fail_retry_count on the log row). */
  retry_count: number;
  /**
   * The alarm of the record (alarms/alarm-status.ts): 0 none, -1 owed (decided, not yet sent:
   * see `alarm_held_until`), 2 sent, 3 failed.
   */
  alarm_status: number;
  /**
   * While the alarm is owed: until when the alarm queue holding it vouches for it (it renews
   * this); past it, the owed-alarm sweep sends it again. Optional on insert: 0.
   */
  alarm_held_until?: number;
  /**
   * What the alarm queue recorded with the alarm status: each channel's error (or that it was
   * sent). Optional on insert: a record starts with none.
   */
  alarm_msg?: string | null;
  /** Epoch of the shard lease under which the fire was claimed (0 when not claimed by a planner). */
  claimed_by_epoch: number;
  /**
   * The failure decision (retries/failure-decisions.ts), taken once by compare-and-set: NULL not
   * decided (or not failed), 0 decided without a retry, otherwise the RETRY record retrying this
   * one. Optional on insert: a record starts undecided.
   */
  retry_fire_id?: number | null;
  /** PARENT fires: the parent job's record whose success triggered this one. */
  triggered_by_fire_id?: number | null;
  /**
   * The child jobs this record's success owes (store/child-fires.ts): 0 none, 1 owed, 2 fired.
   * Optional on insert: 0.
   */
  children_status?: number;
  /** RETRY records: when a node claimed it for dispatch (0 = unclaimed); monitors/retries.ts. */
  dispatch_claimed_at?: number;
  /**
   * Trigger-once records given an address list: that list, a JSON array (migration 0007);
   * NULL otherwise. Optional on insert: NULL.
   */
  address_override?: string | null;
  /**
   * When the lost-run monitor failed the record as lost (migration 0009); NULL otherwise. A real
   * result arriving later replaces that failure and clears it. Optional on insert: NULL.
   */
  lost_at?: number | null;
  /** The workflow run this record is a node's run of (migration 0014); NULL otherwise, and on a broadcast's shards. */
  workflow_run_id?: number | null;
  /** The node of `workflow_run_id` this record runs. */
  workflow_node_key?: string | null;
  /** What the node's run request carries (workflows/node-context.ts), JSON; NULL outside workflows. */
  workflow_context?: string | null;
  /** The JSON value a Tickwheel handler returned for a workflow node; NULL when none. */
  output?: string | null;
  created_at: number;
}

/** A workflow (migration 0014): a graph of nodes and edges with a schedule like a job's. */
export interface WorkflowTable {
  id: Generated<number>;
  app_id: number;
  name: string;
  description: string;
  schedule_type: string;
  schedule_conf: string;
  time_zone: string;
  misfire_strategy: string;
  /** SERIAL | DISCARD | PARALLEL. */
  concurrency: string;
  /** The graph, JSON `{nodes, edges}` (protocol's WorkflowNode / WorkflowEdge). */
  definition: string;
  alarm_email: string;
  /** Comma-separated ids of the alarm channels a failed run is sent through. */
  alarm_channel_ids: string;
  /** 1 = scheduled, 0 = stopped. */
  trigger_status: number;
  next_fire_at: number | null;
  /** Bumped by every run started, under the row's lock (see migration 0014). */
  run_seq: Generated<number>;
  origin: string | null;
  created_at: number;
  updated_at: number;
}

/** One run of a workflow (migration 0014). */
export interface WorkflowRunTable {
  id: Generated<number>;
  workflow_id: number;
  app_id: number;
  /** waiting | running | succeeded | failed | stopped | skipped. */
  status: string;
  trigger_type: string;
  param: string | null;
  scheduled_at: number;
  started_at: number | null;
  finished_at: number | null;
  /** A nested run: the run, and its node, that runs this one as a step. */
  parent_run_id: number | null;
  parent_node_key: string | null;
  /** The graph as it was when the run was made, JSON. */
  definition: string;
  /** Each node's state, JSON (workflows/run-state.ts). */
  state: string;
  /** Compare-and-set counter of every change of the run. */
  version: number;
  /** 0 none, 1 owed (a failed run whose alarm is not sent yet), 2 sent. */
  alarm_status: number;
  created_at: number;
  updated_at: number;
}

/**
 * One app's figures of one UTC day (fires counted by the day they were scheduled for), written
 * by the reports monitor from the fire records and kept after retention deletes them.
 */
export interface DailyAppReportTable {
  /** YYYY-MM-DD, UTC. */
  day: string;
  app_id: number;
  /** pending + dispatched when last computed. */
  running_count: number;
  succeeded_count: number;
  failed_count: number;
  timeout_count: number;
  killed_count: number;
  skipped_count: number;
  dispatch_failed_count: number;
  /** Lateness = dispatch time − due time, over the records dispatched (or refused) that day. */
  lateness_p50_ms: number | null;
  lateness_p99_ms: number | null;
  /** JSON `[[lowerBoundMs, count], ...]`: the lateness in buckets (see reports/histogram.ts). */
  lateness_histogram: string;
  /** Runs with a result after a dispatch: what `mean_run_ms` averages over. */
  run_count: number;
  /** Mean of result time − dispatch time. */
  mean_run_ms: number | null;
  updated_at: number;
}

export interface UsersTable {
  id: Generated<number>;
  username: string;
  /** scrypt hash in the auth module's own encoding. */
  password_hash: string;
  role: 'admin' | 'user';
  /** Comma-separated app ids a `user` may manage. */
  app_permissions: string;
  /**
   * 1 while the user must change their password before the API answers them anything else
   * (migration 0012); 0 otherwise. Optional on insert: 0.
   */
  must_change_password: Generated<number>;
  created_at: number;
  updated_at: number;
}

export interface ApiTokenTable {
  id: Generated<number>;
  name: string;
  /** Hash of the bearer token; the token itself is shown once and never stored. */
  token_hash: string;
  user_id: number;
  created_at: number;
  last_used_at: number | null;
}

/** A console session (`login`): the SHA-256 of its id, its CSRF token and its expiry. */
export interface UserSessionTable {
  id_hash: string;
  user_id: number;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

/** One entry of the audit trail: who did what to which target. */
export interface AuditLogTable {
  id: Generated<number>;
  at: number;
  user_id: number;
  /** The username at the time (the trail outlives the user). */
  username: string;
  /** CREATE | UPDATE | DELETE | START | STOP | TRIGGER | KILL | RESTORE | CHANGE_PASSWORD. */
  action: string;
  /** APP | JOB | FIRE | USER | API_TOKEN | SCRIPT | ALARM_CHANNEL. */
  target_type: string;
  target_id: number | null;
  app_id: number | null;
  /** JSON object: what changed (field names, never secrets). */
  detail: string;
}

/** Key/value settings: generated secrets and other server-wide values. */
export interface SettingTable {
  setting_key: string;
  setting_value: string;
  updated_at: number;
}

export interface ClusterNodeTable {
  node_id: string;
  address: string;
  started_at: number;
  heartbeat_at: number;
}

/**
 * A pull executor's connection (`http-pull`): the server node it is connected to, written by
 * that node (migration 0013).
 */
export interface PullConnectionTable {
  /** The executor's instance id (its address is `pull://<instance>/`). */
  instance: string;
  node_id: string;
  connected_at: number;
}

/**
 * A named lease (`shard:<n>`, `maintenance`): one owner until `expires_at`. `epoch` grows by one
 * whenever ownership changes hands; it is the fencing token every claim compares.
 */
export interface LeaseTable {
  name: string;
  owner_node: string;
  epoch: number;
  expires_at: number;
}

/** An alarm channel an admin configured: where alarms go (SMTP, a webhook, a group robot). */
export interface AlarmChannelTable {
  id: Generated<number>;
  /** Unique; how jobs and people refer to it. */
  name: string;
  /** EMAIL | WEBHOOK | DINGTALK | WECOM | FEISHU. */
  type: string;
  /** 1 = alarms go through it, 0 = kept but skipped. */
  enabled: number;
  /** The type's settings as JSON, secrets included (the REST API masks them). */
  config: string;
  created_at: number;
  updated_at: number;
}

export interface SchemaMigrationsTable {
  version: number;
  name: string;
  applied_at: number;
}

export interface Database {
  app_group: AppGroupTable;
  registry: RegistryTable;
  job: JobTable;
  job_glue: JobGlueTable;
  fire: FireTable;
  daily_app_report: DailyAppReportTable;
  users: UsersTable;
  api_token: ApiTokenTable;
  user_session: UserSessionTable;
  audit_log: AuditLogTable;
  setting: SettingTable;
  cluster_node: ClusterNodeTable;
  pull_connection: PullConnectionTable;
  lease: LeaseTable;
  schema_migrations: SchemaMigrationsTable;
  alarm_channel: AlarmChannelTable;
  workflow: WorkflowTable;
  workflow_run: WorkflowRunTable;
}

export type AppGroupRow = Selectable<AppGroupTable>;
/** A registration without its handler names (see `RegistryTable.handlers`). */
export type RegistryRow = Omit<Selectable<RegistryTable>, 'handlers'>;
export type JobRow = Selectable<JobTable>;
export type NewJobRow = Insertable<JobTable>;
export type JobUpdate = Updateable<JobTable>;
export type JobGlueRow = Selectable<JobGlueTable>;
export type FireRow = Selectable<FireTable>;
export type WorkflowRow = Selectable<WorkflowTable>;
export type NewWorkflowRow = Insertable<WorkflowTable>;
export type WorkflowRunRow = Selectable<WorkflowRunTable>;
export type DailyAppReportRow = Selectable<DailyAppReportTable>;
export type UserRow = Selectable<UsersTable>;
export type ApiTokenRow = Selectable<ApiTokenTable>;
export type UserSessionRow = Selectable<UserSessionTable>;
export type AuditLogRow = Selectable<AuditLogTable>;
export type ClusterNodeRow = Selectable<ClusterNodeTable>;
export type LeaseRow = Selectable<LeaseTable>;
export type AlarmChannelRow = Selectable<AlarmChannelTable>;
