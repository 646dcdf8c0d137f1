/**
 * 0006 — what a finished run still owes, kept on its fire record so a node that dies before
 * paying it leaves it to another node (or to its own next start), for MySQL and MariaDB.
 *
 * - `children_status`: 0 nothing owed; 1 the run succeeded and its job has child jobs, which
 *   are owed (set by the statement that finishes the record); 2 the child records were created
 *   (set in the transaction that creates them, as a compare-and-set from 1, so they are created
 *   once). The owed-children sweep reads the index from (1, look-back start) on.
 * - `alarm_held_until`: while `alarm_status` is -1 (an alarm is owed: set with the failure
 *   decision), until when the alarm queue that holds it vouches for it; the queue renews it, and
 *   past it the owed-alarm sweep sends the alarm again, read through the index from -1 on.
 *
 * MySQL has no partial index: the status leads each index, so a sweep reads only the owed
 * records. MySQL commits DDL implicitly, so every statement can run again: each column and
 * index is added through a statement chosen from information_schema (the ALTER when it is
 * missing, `DO 0` when a first run that died half-way added it already).
 */
export default `
SET @tw_add_column = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE fire ADD COLUMN children_status TINYINT NOT NULL DEFAULT 0', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'fire' AND column_name = 'children_status');
PREPARE tw_add_column FROM @tw_add_column;
EXECUTE tw_add_column;
DEALLOCATE PREPARE tw_add_column;

SET @tw_add_column = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE fire ADD COLUMN alarm_held_until BIGINT NOT NULL DEFAULT 0', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'fire' AND column_name = 'alarm_held_until');
PREPARE tw_add_column FROM @tw_add_column;
EXECUTE tw_add_column;
DEALLOCATE PREPARE tw_add_column;

SET @tw_add_index = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE fire ADD INDEX fire_children_owed_idx (children_status, scheduled_at)', 'DO 0') FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'fire' AND index_name = 'fire_children_owed_idx');
PREPARE tw_add_index FROM @tw_add_index;
EXECUTE tw_add_index;
DEALLOCATE PREPARE tw_add_index;

SET @tw_add_index = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE fire ADD INDEX fire_alarm_owed_idx (alarm_status, alarm_held_until)', 'DO 0') FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'fire' AND index_name = 'fire_alarm_owed_idx');
PREPARE tw_add_index FROM @tw_add_index;
EXECUTE tw_add_index;
DEALLOCATE PREPARE tw_add_index;
`;
