/**
 * 0014 — workflows, for MySQL and MariaDB (the tables are described in the PostgreSQL migration
 * of the same number). Columns are added only when missing, so a migration interrupted half way
 * runs again.
 */
const addColumn = (table: string, column: string, type: string) => `
SET @tw_add_column = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE ${table} ADD COLUMN ${column} ${type}', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = '${table}' AND column_name = '${column}');
PREPARE tw_add_column FROM @tw_add_column;
EXECUTE tw_add_column;
DEALLOCATE PREPARE tw_add_column;
`;

export default `
CREATE TABLE IF NOT EXISTS workflow (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  app_id BIGINT NOT NULL,
  name VARCHAR(255) NOT NULL,
  description VARCHAR(512) NOT NULL DEFAULT '',
  schedule_type VARCHAR(16) NOT NULL,
  schedule_conf VARCHAR(255) NOT NULL,
  time_zone VARCHAR(64) NOT NULL,
  misfire_strategy VARCHAR(16) NOT NULL,
  concurrency VARCHAR(16) NOT NULL,
  definition MEDIUMTEXT NOT NULL,
  alarm_email VARCHAR(255) NOT NULL DEFAULT '',
  alarm_channel_ids VARCHAR(255) NOT NULL DEFAULT '',
  trigger_status TINYINT NOT NULL DEFAULT 0,
  next_fire_at BIGINT NULL,
  run_seq BIGINT NOT NULL DEFAULT 0,
  origin VARCHAR(255) NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE KEY workflow_app_name_idx (app_id, name),
  KEY workflow_due_idx (trigger_status, next_fire_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS workflow_run (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  workflow_id BIGINT NOT NULL,
  app_id BIGINT NOT NULL,
  status VARCHAR(16) NOT NULL,
  trigger_type VARCHAR(16) NOT NULL,
  param MEDIUMTEXT NULL,
  scheduled_at BIGINT NOT NULL,
  started_at BIGINT NULL,
  finished_at BIGINT NULL,
  parent_run_id BIGINT NULL,
  parent_node_key VARCHAR(64) NULL,
  definition MEDIUMTEXT NOT NULL,
  state MEDIUMTEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 0,
  alarm_status TINYINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  KEY workflow_run_workflow_idx (workflow_id, id),
  KEY workflow_run_status_idx (status, updated_at),
  KEY workflow_run_parent_idx (parent_run_id),
  KEY workflow_run_scheduled_idx (scheduled_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
${[
  addColumn('fire', 'workflow_run_id', 'BIGINT NULL'),
  addColumn('fire', 'workflow_node_key', 'VARCHAR(64) NULL'),
  addColumn('fire', 'workflow_context', 'MEDIUMTEXT NULL'),
  addColumn('fire', 'output', 'MEDIUMTEXT NULL'),
].join('')}
SET @tw_add_index = (SELECT IF(COUNT(*) = 0, 'CREATE INDEX fire_workflow_run_idx ON fire (workflow_run_id)', 'DO 0') FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'fire' AND index_name = 'fire_workflow_run_idx');
PREPARE tw_add_index FROM @tw_add_index;
EXECUTE tw_add_index;
DEALLOCATE PREPARE tw_add_index;
`;
