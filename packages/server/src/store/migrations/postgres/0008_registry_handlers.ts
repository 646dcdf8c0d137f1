/**
 * 0008 — a registration keeps the handler names its executor sent, for PostgreSQL.
 *
 * `handlers`: NULL when the executor sent none (every XXL-JOB executor, Tickwheel's script
 * executor), else the names of Tickwheel's `handlers` registry field as a JSON array. Each
 * heartbeat replaces it, so it is what the executor has now. A nullable column without a default
 * rewrites nothing.
 */
export default `
ALTER TABLE registry ADD COLUMN IF NOT EXISTS handlers TEXT NULL;
`;
