/**
 * 0008 — a registration keeps the handler names its executor sent, for MySQL and MariaDB.
 *
 * `handlers`: NULL when the executor sent none (every XXL-JOB executor, Tickwheel's script
 * executor), else the names of Tickwheel's `handlers` registry field as a JSON array. Each
 * heartbeat replaces it, so it is what the executor has now. MEDIUMTEXT, since 1,000 names of
 * 255 characters can pass TEXT's 64 KiB.
 *
 * MySQL commits DDL implicitly, so the column is added through a statement chosen from
 * information_schema (the ALTER when it is missing, `DO 0` when a first run that died half-way
 * added it already).
 */
export default `
SET @tw_add_column = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE registry ADD COLUMN handlers MEDIUMTEXT NULL', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'registry' AND column_name = 'handlers');
PREPARE tw_add_column FROM @tw_add_column;
EXECUTE tw_add_column;
DEALLOCATE PREPARE tw_add_column;
`;
