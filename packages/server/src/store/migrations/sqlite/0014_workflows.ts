/**
 * 0014 — workflows, for SQLite (the tables are described in the PostgreSQL migration of the
 * same number).
 */
export default `
CREATE TABLE IF NOT EXISTS workflow (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  app_id BIGINT NOT NULL,
  name VARCHAR(255) NOT NULL,
  description VARCHAR(512) NOT NULL DEFAULT '',
  schedule_type VARCHAR(16) NOT NULL,
  schedule_conf VARCHAR(255) NOT NULL,
  time_zone VARCHAR(64) NOT NULL,
  misfire_strategy VARCHAR(16) NOT NULL,
  concurrency VARCHAR(16) NOT NULL,
  definition TEXT NOT NULL,
  alarm_email VARCHAR(255) NOT NULL DEFAULT '',
  alarm_channel_ids VARCHAR(255) NOT NULL DEFAULT '',
  trigger_status SMALLINT NOT NULL DEFAULT 0,
  next_fire_at BIGINT NULL,
  run_seq BIGINT NOT NULL DEFAULT 0,
  origin VARCHAR(255) NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS workflow_app_name_idx ON workflow (app_id, name);
CREATE INDEX IF NOT EXISTS workflow_due_idx ON workflow (trigger_status, next_fire_at);

CREATE TABLE IF NOT EXISTS workflow_run (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workflow_id BIGINT NOT NULL,
  app_id BIGINT NOT NULL,
  status VARCHAR(16) NOT NULL,
  trigger_type VARCHAR(16) NOT NULL,
  param TEXT NULL,
  scheduled_at BIGINT NOT NULL,
  started_at BIGINT NULL,
  finished_at BIGINT NULL,
  parent_run_id BIGINT NULL,
  parent_node_key VARCHAR(64) NULL,
  definition TEXT NOT NULL,
  state TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 0,
  alarm_status SMALLINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS workflow_run_workflow_idx ON workflow_run (workflow_id, id);
CREATE INDEX IF NOT EXISTS workflow_run_status_idx ON workflow_run (status, updated_at);
CREATE INDEX IF NOT EXISTS workflow_run_parent_idx ON workflow_run (parent_run_id) WHERE parent_run_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS workflow_run_scheduled_idx ON workflow_run (scheduled_at);

ALTER TABLE fire ADD COLUMN workflow_run_id BIGINT NULL;
ALTER TABLE fire ADD COLUMN workflow_node_key VARCHAR(64) NULL;
ALTER TABLE fire ADD COLUMN workflow_context TEXT NULL;
ALTER TABLE fire ADD COLUMN output TEXT NULL;
CREATE INDEX IF NOT EXISTS fire_workflow_run_idx ON fire (workflow_run_id) WHERE workflow_run_id IS NOT NULL;
`;
