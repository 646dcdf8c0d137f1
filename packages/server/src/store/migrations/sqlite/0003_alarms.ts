/**
 * 0003 — alarms for SQLite: the channels an admin configures (`alarm_channel`, the config as
 * JSON text), the channels a job alarms through (`job.alarm_channel_ids`, comma-separated like
 * `child_job_ids`) and the error of a failed alarm on the fire record (`fire.alarm_msg`).
 */
export default `
CREATE TABLE alarm_channel (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name VARCHAR(64) NOT NULL,
  type VARCHAR(16) NOT NULL,
  enabled SMALLINT NOT NULL,
  config TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  CONSTRAINT alarm_channel_name_key UNIQUE (name)
);

ALTER TABLE job ADD COLUMN alarm_channel_ids VARCHAR(255) NOT NULL DEFAULT '';

ALTER TABLE fire ADD COLUMN alarm_msg TEXT NULL;
`;
