/**
 * 0001 — the initial schema for MySQL and MariaDB. Every time column is epoch milliseconds in
 * BIGINT, so no session or server time zone can shift a schedule. MySQL commits DDL implicitly,
 * so every statement can run again safely (IF NOT EXISTS, indexes inline) should a node die
 * half-way through. utf8mb4_bin makes names and addresses compare exactly, as on PostgreSQL.
 */
export default `
CREATE TABLE IF NOT EXISTS app_group (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  app_name VARCHAR(64) NOT NULL,
  title VARCHAR(128) NOT NULL,
  address_type VARCHAR(8) NOT NULL,
  address_list TEXT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE KEY app_group_app_name_key (app_name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS registry (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  registry_group VARCHAR(50) NOT NULL,
  registry_key VARCHAR(255) NOT NULL,
  registry_value VARCHAR(255) NOT NULL,
  protocol VARCHAR(4) NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE KEY registry_entry_key (registry_group, registry_key, registry_value),
  KEY registry_updated_at_idx (updated_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS job (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
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
  glue_source MEDIUMTEXT NOT NULL,
  glue_remark VARCHAR(128) NOT NULL,
  glue_updated_at BIGINT NOT NULL,
  child_job_ids VARCHAR(255) NOT NULL,
  trigger_status TINYINT NOT NULL,
  next_fire_at BIGINT NULL,
  last_run_end_at BIGINT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  KEY job_due_idx (trigger_status, next_fire_at),
  KEY job_app_idx (app_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS job_glue (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  job_id BIGINT NOT NULL,
  glue_type VARCHAR(32) NOT NULL,
  glue_source MEDIUMTEXT NOT NULL,
  glue_remark VARCHAR(128) NOT NULL,
  created_at BIGINT NOT NULL,
  KEY job_glue_job_idx (job_id, id),
  CONSTRAINT job_glue_job_fk FOREIGN KEY (job_id) REFERENCES job (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS fire (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
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
  alarm_status TINYINT NOT NULL,
  claimed_by_epoch BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  UNIQUE KEY fire_claim_key (claim_job_id, scheduled_at),
  KEY fire_status_scheduled_idx (status, scheduled_at),
  KEY fire_job_scheduled_idx (job_id, scheduled_at),
  KEY fire_status_address_idx (status, executor_address),
  KEY fire_app_scheduled_idx (app_id, scheduled_at),
  KEY fire_scheduled_idx (scheduled_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS daily_report (
  day VARCHAR(10) PRIMARY KEY,
  running_count BIGINT NOT NULL,
  succeeded_count BIGINT NOT NULL,
  failed_count BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS users (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  username VARCHAR(64) NOT NULL,
  password_hash VARCHAR(255) NOT NULL,
  role VARCHAR(8) NOT NULL,
  app_permissions VARCHAR(1024) NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE KEY users_username_key (username)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS api_token (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name VARCHAR(128) NOT NULL,
  token_hash VARCHAR(128) NOT NULL,
  user_id BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  last_used_at BIGINT NULL,
  UNIQUE KEY api_token_hash_key (token_hash),
  CONSTRAINT api_token_user_fk FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS setting (
  setting_key VARCHAR(128) PRIMARY KEY,
  setting_value TEXT NOT NULL,
  updated_at BIGINT NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS cluster_node (
  node_id VARCHAR(64) PRIMARY KEY,
  address VARCHAR(255) NOT NULL,
  started_at BIGINT NOT NULL,
  heartbeat_at BIGINT NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS lease (
  name VARCHAR(64) PRIMARY KEY,
  owner_node VARCHAR(64) NOT NULL,
  epoch BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
`;
