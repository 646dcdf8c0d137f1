/**
 * 0008 — a registration keeps the handler names its executor sent, for SQLite.
 *
 * `handlers`: NULL when the executor sent none (every XXL-JOB executor, Tickwheel's script
 * executor), else the names of Tickwheel's `handlers` registry field as a JSON array. Each
 * heartbeat replaces it, so it is what the executor has now.
 */
export default `
ALTER TABLE registry ADD COLUMN handlers TEXT NULL;
`;
