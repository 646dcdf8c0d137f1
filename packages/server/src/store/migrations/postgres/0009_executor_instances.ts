/**
 * 0009 — executor instances and lost runs, for PostgreSQL.
 *
 * `registry.instance`: the instance id the executor sent in its last registration (Tickwheel's
 * `instance` field, new at each start of the executor process); NULL for XXL-JOB executors.
 * `fire.executor_instance`: the instance that accepted the run (the `Tickwheel-Instance` header of
 * its `run` answer); NULL when the executor announced none. A registration whose instance differs
 * from the stored one fails the runs other instances had at that address.
 * `fire.lost_at`: when the lost-run monitor failed the record as lost; NULL otherwise. A real
 * result that comes later replaces such a failure (and clears it).
 *
 * Nullable columns without a default rewrite nothing: instant on a table of millions of records.
 */
export default `
ALTER TABLE registry ADD COLUMN IF NOT EXISTS instance VARCHAR(64) NULL;
ALTER TABLE fire ADD COLUMN IF NOT EXISTS executor_instance VARCHAR(64) NULL;
ALTER TABLE fire ADD COLUMN IF NOT EXISTS lost_at BIGINT NULL;
`;
