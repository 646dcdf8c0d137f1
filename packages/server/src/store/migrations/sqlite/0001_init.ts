/**
 * 0001 — the initial schema for SQLite. Every time column is epoch milliseconds in an INTEGER,
 * so no time zone can shift a schedule. Ids are AUTOINCREMENT so the id of a deleted row (a
 * fire's logId above all) is never handed out again.
 */
export default `
CREATE TABLE app_group (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  app_name VARCHAR(64) NOT NULL,
  title VARCHAR(128) NOT NULL,
  address_type VARCHAR(8) NOT NULL,
  address_list TEXT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  CONSTRAINT app_group_app_name_key UNIQUE (app_name)
);

CREATE TABLE registry (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  registry_group VARCHAR(50) NOT NULL,
  registry_key VARCHAR(255) NOT NULL,
  registry_value VARCHAR(255) NOT NULL,
  protocol VARCHAR(4) NOT NULL,
  updated_at BIGINT NOT NULL,
  CONSTRAINT registry_entry_key UNIQUE (registry_group, registry_key, registry_value)
);
CREATE INDEX registry_updated_at_idx ON registry (updated_at);

CREATE TABLE job (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  app_id BIGINT NOT NULL,
  name VARCHAR(255) NOT NULL,
  author VARCHAR(64) NOT NULL,
  alarm_email VARCHAR(255) NOT NULL,
  schedule_type VARCHAR(16) NOT NULL,
  schedule_conf VARCHAR(255) NOT NULL,
  time_zone VARCHAR(64) NOT NULL,
  misfire_strategy VARCHAR(16) NOT NULL,
  executor_route_strategy VARCHAR(32) NOT NULL,
  executor_handler VARCHAR(255) NOT NULL,
  executor_param TEXT NOT NULL,
  executor_block_strategy VARCHAR(32) NOT NULL,
  executor_timeout INTEGER NOT NULL,
  executor_fail_retry_count INTEGER NOT NULL,
  glue_type VARCHAR(32) NOT NULL,
  glue_source TEXT NOT NULL,
  glue_remark VARCHAR(128) NOT NULL,
  glue_updated_at BIGINT NOT NULL,
  child_job_ids VARCHAR(255) NOT NULL,
  trigger_status SMALLINT NOT NULL,
  next_fire_at BIGINT NULL,
  last_run_end_at BIGINT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX job_due_idx ON job (trigger_status, next_fire_at);
CREATE INDEX job_app_idx ON job (app_id);

CREATE TABLE job_glue (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id BIGINT NOT NULL REFERENCES job (id) ON DELETE CASCADE,
  glue_type VARCHAR(32) NOT NULL,
  glue_source TEXT NOT NULL,
  glue_remark VARCHAR(128) NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX job_glue_job_idx ON job_glue (job_id, id);

CREATE TABLE fire (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id BIGINT NOT NULL,
  app_id BIGINT NOT NULL,
  parent_fire_id BIGINT NULL,
  claim_job_id BIGINT NULL,
  scheduled_at BIGINT NOT NULL,
  trigger_type VARCHAR(16) NOT NULL,
  trigger_at BIGINT NULL,
  executor_address VARCHAR(255) NULL,
  executor_handler VARCHAR(255) NOT NULL,
  executor_param TEXT NULL,
  shard_index INTEGER NOT NULL,
  shard_total INTEGER NOT NULL,
  trigger_code INTEGER NULL,
  trigger_msg TEXT NULL,
  handle_at BIGINT NULL,
  handle_code INTEGER NULL,
  handle_msg TEXT NULL,
  status VARCHAR(16) NOT NULL,
  retry_count INTEGER NOT NULL,
  alarm_status SMALLINT NOT NULL,
  claimed_by_epoch BIGINT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX fire_claim_key ON fire (claim_job_id, scheduled_at);
CREATE INDEX fire_status_scheduled_idx ON fire (status, scheduled_at);
CREATE INDEX fire_job_scheduled_idx ON fire (job_id, scheduled_at);
CREATE INDEX fire_status_address_idx ON fire (status, executor_address);
CREATE INDEX fire_app_scheduled_idx ON fire (app_id, scheduled_at);
CREATE INDEX fire_scheduled_idx ON fire (scheduled_at);

CREATE TABLE daily_report (
  day VARCHAR(10) PRIMARY KEY,
  running_count BIGINT NOT NULL,
  succeeded_count BIGINT NOT NULL,
  failed_count BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  username VARCHAR(64) NOT NULL,
  password_hash VARCHAR(255) NOT NULL,
  role VARCHAR(8) NOT NULL,
  app_permissions VARCHAR(1024) NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  CONSTRAINT users_username_key UNIQUE (username)
);

CREATE TABLE api_token (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name VARCHAR(128) NOT NULL,
  token_hash VARCHAR(128) NOT NULL,
  user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  last_used_at BIGINT NULL,
  CONSTRAINT api_token_hash_key UNIQUE (token_hash)
);

CREATE TABLE setting (
  setting_key VARCHAR(128) PRIMARY KEY,
  setting_value TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE cluster_node (
  node_id VARCHAR(64) PRIMARY KEY,
  address VARCHAR(255) NOT NULL,
  started_at BIGINT NOT NULL,
  heartbeat_at BIGINT NOT NULL
);

CREATE TABLE lease (
  name VARCHAR(64) PRIMARY KEY,
  owner_node VARCHAR(64) NOT NULL,
  epoch BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
`;
