/**
 * 0009 — executor instances and lost runs, for SQLite.
 *
 * `registry.instance`: the instance id the executor sent in its last registration (Tickwheel's
 * `instance` field, new at each start of the executor process); NULL for XXL-JOB executors.
 * `fire.executor_instance`: the instance that accepted the run (the `Tickwheel-Instance` header of
 * its `run` answer); NULL when the executor announced none. A registration whose instance differs
 * from the stored one fails the runs other instances had at that address.
 * `fire.lost_at`: when the lost-run monitor failed the record as lost; NULL otherwise. A real
 * result that comes later replaces such a failure (and clears it).
 */
export default `
ALTER TABLE registry ADD COLUMN instance TEXT NULL;
ALTER TABLE fire ADD COLUMN executor_instance TEXT NULL;
ALTER TABLE fire ADD COLUMN lost_at INTEGER NULL;
`;
