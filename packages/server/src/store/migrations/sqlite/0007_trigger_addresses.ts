/**
 * 0007 — a trigger-once record keeps the executors it was asked to run on, for SQLite.
 *
 * `address_override`: NULL for every record but a trigger-once (`triggerJob`) given an address
 * list; then that list as a JSON array of the app's own spelling of each address (checked
 * against the app when the trigger was asked). A record left pending by a server that died is
 * dispatched by recovery to those executors, not by the job's route.
 */
export default `
ALTER TABLE fire ADD COLUMN address_override TEXT NULL;
`;
