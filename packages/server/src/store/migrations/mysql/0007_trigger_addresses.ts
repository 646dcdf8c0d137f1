/**
 * 0007 — a trigger-once record keeps the executors it was asked to run on, for MySQL and
 * MariaDB.
 *
 * `address_override`: NULL for every record but a trigger-once (`triggerJob`) given an address
 * list; then that list as a JSON array of the app's own spelling of each address (checked
 * against the app when the trigger was asked). A record left pending by a server that died is
 * dispatched by recovery to those executors, not by the job's route.
 *
 * MySQL commits DDL implicitly, so the column is added through a statement chosen from
 * information_schema (the ALTER when it is missing, `DO 0` when a first run that died half-way
 * added it already).
 */
export default `
SET @tw_add_column = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE fire ADD COLUMN address_override TEXT NULL', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'fire' AND column_name = 'address_override');
PREPARE tw_add_column FROM @tw_add_column;
EXECUTE tw_add_column;
DEALLOCATE PREPARE tw_add_column;
`;
