/**
 * 0002 — retries, child jobs and their records, for MySQL and MariaDB. On the job: the retry
 * back-off (`retry_backoff_strategy` FIXED | EXPONENTIAL, `retry_delay_seconds`,
 * `retry_max_delay_seconds`) and when a failure alarms (`alarm_on` EVERY_FAILURE |
 * FINAL_FAILURE). On the fire record: `retry_fire_id` — the failure decision, taken once by
 * compare-and-set (NULL: not decided yet; 0: decided, no retry; otherwise the RETRY record made
 * for it) —, `triggered_by_fire_id` (the parent job's record a PARENT fire was triggered by) and
 * `dispatch_claimed_at` (when a node claimed a due RETRY record for dispatch; 0 = unclaimed).
 *
 * MySQL commits DDL implicitly, so every statement can run again: each column is added through
 * a statement chosen from information_schema — the ALTER when the column is missing, `DO 0`
 * when a first run that died half-way added it already (MySQL has no ADD COLUMN IF NOT EXISTS).
 */
export default `
SET @tw_add_column = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE job ADD COLUMN retry_backoff_strategy VARCHAR(16) NOT NULL DEFAULT ''FIXED''', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'job' AND column_name = 'retry_backoff_strategy');
PREPARE tw_add_column FROM @tw_add_column;
EXECUTE tw_add_column;
DEALLOCATE PREPARE tw_add_column;

SET @tw_add_column = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE job ADD COLUMN retry_delay_seconds INTEGER NOT NULL DEFAULT 10', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'job' AND column_name = 'retry_delay_seconds');
PREPARE tw_add_column FROM @tw_add_column;
EXECUTE tw_add_column;
DEALLOCATE PREPARE tw_add_column;

SET @tw_add_column = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE job ADD COLUMN retry_max_delay_seconds INTEGER NOT NULL DEFAULT 600', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'job' AND column_name = 'retry_max_delay_seconds');
PREPARE tw_add_column FROM @tw_add_column;
EXECUTE tw_add_column;
DEALLOCATE PREPARE tw_add_column;

SET @tw_add_column = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE job ADD COLUMN alarm_on VARCHAR(16) NOT NULL DEFAULT ''EVERY_FAILURE''', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'job' AND column_name = 'alarm_on');
PREPARE tw_add_column FROM @tw_add_column;
EXECUTE tw_add_column;
DEALLOCATE PREPARE tw_add_column;

SET @tw_add_column = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE fire ADD COLUMN retry_fire_id BIGINT NULL', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'fire' AND column_name = 'retry_fire_id');
PREPARE tw_add_column FROM @tw_add_column;
EXECUTE tw_add_column;
DEALLOCATE PREPARE tw_add_column;

SET @tw_add_column = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE fire ADD COLUMN triggered_by_fire_id BIGINT NULL', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'fire' AND column_name = 'triggered_by_fire_id');
PREPARE tw_add_column FROM @tw_add_column;
EXECUTE tw_add_column;
DEALLOCATE PREPARE tw_add_column;

SET @tw_add_column = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE fire ADD COLUMN dispatch_claimed_at BIGINT NOT NULL DEFAULT 0', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'fire' AND column_name = 'dispatch_claimed_at');
PREPARE tw_add_column FROM @tw_add_column;
EXECUTE tw_add_column;
DEALLOCATE PREPARE tw_add_column;
`;
