/**
 * 0007 — a trigger-once record keeps the executors it was asked to run on, for PostgreSQL.
 *
 * `address_override`: NULL for every record but a trigger-once (`triggerJob`) given an address
 * list; then that list as a JSON array of the app's own spelling of each address (checked
 * against the app when the trigger was asked). A record left pending by a server that died is
 * dispatched by recovery to those executors, not by the job's route. Adding a nullable column
 * without a default rewrites nothing: it is instant on a table of millions of records.
 */
export default `
ALTER TABLE fire ADD COLUMN IF NOT EXISTS address_override TEXT NULL;
`;
