/**
 * 0016 — the fire record's claim key and its (job_id, scheduled_at) index become one index, for
 * MySQL and MariaDB (why: the PostgreSQL migration of the same number).
 *
 * MySQL has neither CREATE INDEX IF NOT EXISTS nor DROP INDEX IF EXISTS, and its DDL commits as
 * it goes: each statement is chosen from information_schema (the change when it is still to do,
 * `DO 0` when a first run that died half-way did it already), so the migration can run again.
 * The new index goes in before the old ones are dropped: the table is never without its guard.
 */
export default `
SET @tw_add_index = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE fire ADD UNIQUE KEY fire_job_claim_key (job_id, scheduled_at, claim_job_id)', 'DO 0') FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'fire' AND index_name = 'fire_job_claim_key');
PREPARE tw_add_index FROM @tw_add_index;
EXECUTE tw_add_index;
DEALLOCATE PREPARE tw_add_index;
SET @tw_drop_index = (SELECT IF(COUNT(*) = 0, 'DO 0', 'ALTER TABLE fire DROP INDEX fire_claim_key') FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'fire' AND index_name = 'fire_claim_key');
PREPARE tw_drop_index FROM @tw_drop_index;
EXECUTE tw_drop_index;
DEALLOCATE PREPARE tw_drop_index;
SET @tw_drop_index = (SELECT IF(COUNT(*) = 0, 'DO 0', 'ALTER TABLE fire DROP INDEX fire_job_scheduled_idx') FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'fire' AND index_name = 'fire_job_scheduled_idx');
PREPARE tw_drop_index FROM @tw_drop_index;
EXECUTE tw_drop_index;
DEALLOCATE PREPARE tw_drop_index;
`;
