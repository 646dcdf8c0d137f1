/**
 * 0016 — the fire record's claim key and its (job_id, scheduled_at) index become one index, for
 * SQLite (why: the PostgreSQL migration of the same number).
 */
export default `
CREATE UNIQUE INDEX IF NOT EXISTS fire_job_claim_key ON fire (job_id, scheduled_at, claim_job_id);
DROP INDEX IF EXISTS fire_claim_key;
DROP INDEX IF EXISTS fire_job_scheduled_idx;
`;
