/**
 * 0006 — what a finished run still owes, kept on its fire record so a node that dies before
 * paying it leaves it to another node (or to its own next start), for SQLite.
 *
 * - `children_status`: 0 nothing owed; 1 the run succeeded and its job has child jobs, which
 *   are owed (set by the statement that finishes the record); 2 the child records were created
 *   (set in the transaction that creates them, as a compare-and-set from 1, so they are created
 *   once). The owed-children sweep reads the partial index of the records at 1.
 * - `alarm_held_until`: while `alarm_status` is -1 (an alarm is owed: set with the failure
 *   decision), until when the alarm queue that holds it vouches for it; the queue renews it, and
 *   past it the owed-alarm sweep sends the alarm again. The partial index holds only owed alarms.
 *
 * Both indexes are partial, so the records that owe nothing (nearly all) cost them nothing.
 */
export default `
ALTER TABLE fire ADD COLUMN children_status SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE fire ADD COLUMN alarm_held_until BIGINT NOT NULL DEFAULT 0;

CREATE INDEX fire_children_owed_idx ON fire (scheduled_at) WHERE children_status = 1;
CREATE INDEX fire_alarm_owed_idx ON fire (alarm_held_until) WHERE alarm_status = -1;
`;
