/**
 * 0003 — alarms for MySQL and MariaDB: the channels an admin configures (`alarm_channel`, the
 * config as JSON text), the channels a job alarms through (`job.alarm_channel_ids`,
 * comma-separated like `child_job_ids`) and the error of a failed alarm on the fire record
 * (`fire.alarm_msg`).
 *
 * MySQL commits DDL implicitly, so every statement can run again: MySQL has no
 * `ADD COLUMN IF NOT EXISTS` (only MariaDB does), so each column is added through a statement
 * chosen from information_schema — the ALTER when the column is missing, `DO 0` when a first
 * run that died half-way added it already.
 */
export default `
CREATE TABLE IF NOT EXISTS alarm_channel (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name VARCHAR(64) NOT NULL,
  type VARCHAR(16) NOT NULL,
  enabled TINYINT NOT NULL,
  config TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE KEY alarm_channel_name_key (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

SET @tw_add_column = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE job ADD COLUMN alarm_channel_ids VARCHAR(255) NOT NULL DEFAULT ''''', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'job' AND column_name = 'alarm_channel_ids');
PREPARE tw_add_column FROM @tw_add_column;
EXECUTE tw_add_column;
DEALLOCATE PREPARE tw_add_column;

SET @tw_add_column = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE fire ADD COLUMN alarm_msg TEXT NULL', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'fire' AND column_name = 'alarm_msg');
PREPARE tw_add_column FROM @tw_add_column;
EXECUTE tw_add_column;
DEALLOCATE PREPARE tw_add_column;
`;
