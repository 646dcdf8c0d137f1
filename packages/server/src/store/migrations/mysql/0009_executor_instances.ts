/**
 * 0009 — executor instances and lost runs, for MySQL and MariaDB.
 *
 * `registry.instance`: the instance id the executor sent in its last registration (Tickwheel's
 * `instance` field, new at each start of the executor process); NULL for XXL-JOB executors.
 * `fire.executor_instance`: the instance that accepted the run (the `Tickwheel-Instance` header of
 * its `run` answer); NULL when the executor announced none. A registration whose instance differs
 * from the stored one fails the runs other instances had at that address.
 * `fire.lost_at`: when the lost-run monitor failed the record as lost; NULL otherwise. A real
 * result that comes later replaces such a failure (and clears it).
 *
 * MySQL commits DDL implicitly, so each column is added through a statement chosen from
 * information_schema (the ALTER when it is missing, `DO 0` when a first run that died half-way
 * added it already).
 */
const addColumn = (table: string, column: string, type: string) => `
SET @tw_add_column = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE ${table} ADD COLUMN ${column} ${type} NULL', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = '${table}' AND column_name = '${column}');
PREPARE tw_add_column FROM @tw_add_column;
EXECUTE tw_add_column;
DEALLOCATE PREPARE tw_add_column;
`;

export default [
  addColumn('registry', 'instance', 'VARCHAR(64)'),
  addColumn('fire', 'executor_instance', 'VARCHAR(64)'),
  addColumn('fire', 'lost_at', 'BIGINT'),
].join('');
