/**
 * 0002 — retries, child jobs and their records, for PostgreSQL. On the job: the retry back-off
 * (`retry_backoff_strategy` FIXED | EXPONENTIAL, `retry_delay_seconds`, `retry_max_delay_seconds`)
 * and when a failure alarms (`alarm_on` EVERY_FAILURE | FINAL_FAILURE). On the fire record:
 * `retry_fire_id` — the failure decision, taken once by compare-and-set (NULL: not decided yet;
 * 0: decided, no retry; otherwise the RETRY record made for it) —, `triggered_by_fire_id` (the
 * parent job's record a PARENT fire was triggered by) and `dispatch_claimed_at` (when a node
 * claimed a due RETRY record for dispatch; 0 = unclaimed). Adding a nullable column, or one with
 * a constant default, rewrites no rows.
 */
export default `
ALTER TABLE job ADD COLUMN retry_backoff_strategy VARCHAR(16) NOT NULL DEFAULT 'FIXED';
ALTER TABLE job ADD COLUMN retry_delay_seconds INTEGER NOT NULL DEFAULT 10;
ALTER TABLE job ADD COLUMN retry_max_delay_seconds INTEGER NOT NULL DEFAULT 600;
ALTER TABLE job ADD COLUMN alarm_on VARCHAR(16) NOT NULL DEFAULT 'EVERY_FAILURE';

ALTER TABLE fire ADD COLUMN retry_fire_id BIGINT NULL;
ALTER TABLE fire ADD COLUMN triggered_by_fire_id BIGINT NULL;
ALTER TABLE fire ADD COLUMN dispatch_claimed_at BIGINT NOT NULL DEFAULT 0;
`;
