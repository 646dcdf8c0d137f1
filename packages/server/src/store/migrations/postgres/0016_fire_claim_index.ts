/**
 * 0016 — the fire record's claim key and its (job_id, scheduled_at) index become one index.
 *
 * UNIQUE (job_id, scheduled_at, claim_job_id) guards "one claimed record per (job, scheduled
 * time)" as UNIQUE (claim_job_id, scheduled_at) did: a claimed fire has `claim_job_id = job_id`,
 * so two claimed records of one job and time collide on all three columns, while broadcast shards
 * and retries keep `claim_job_id = NULL` and never collide (NULLs are distinct in a unique index).
 * Its leading (job_id, scheduled_at) serves every query the old plain index served (a job's
 * records by time, the MySQL claim's look-up of the times it recorded). Every claimed record
 * wrote both indexes; now it writes one (bench/fire's `index-cost`).
 *
 * The new index is built before the old ones go, in the migration's transaction, so the table is
 * never without its guard. Building it reads the whole table once.
 */
export default `
CREATE UNIQUE INDEX IF NOT EXISTS fire_job_claim_key ON fire (job_id, scheduled_at, claim_job_id);
DROP INDEX IF EXISTS fire_claim_key;
DROP INDEX IF EXISTS fire_job_scheduled_idx;
`;
