/**
 * 0012 — where imported jobs and apps came from, and a forced password change, for MySQL and
 * MariaDB (the columns are described in the PostgreSQL migration of the same number).
 *
 * MySQL commits DDL implicitly, so each column is added through a statement chosen from
 * information_schema (the ALTER when it is missing, `DO 0` when a first run that died half-way
 * added it already).
 */
const addColumn = (table: string, column: string, type: string) => `
SET @tw_add_column = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE ${table} ADD COLUMN ${column} ${type}', 'DO 0') FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = '${table}' AND column_name = '${column}');
PREPARE tw_add_column FROM @tw_add_column;
EXECUTE tw_add_column;
DEALLOCATE PREPARE tw_add_column;
`;

export default [
  addColumn('job', 'origin', 'VARCHAR(255) NULL'),
  addColumn('app_group', 'origin', 'VARCHAR(255) NULL'),
  addColumn('users', 'must_change_password', 'TINYINT NOT NULL DEFAULT 0'),
].join('');
