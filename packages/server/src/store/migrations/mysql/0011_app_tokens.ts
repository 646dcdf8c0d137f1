/**
 * 0011 — a credential per app, for MySQL and MariaDB (the columns are described in the
 * PostgreSQL migration of the same number).
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
  addColumn('app_group', 'access_token', 'VARCHAR(255)'),
  addColumn('app_group', 'previous_access_token', 'VARCHAR(255)'),
  addColumn('app_group', 'previous_token_until', 'BIGINT'),
  addColumn('registry', 'token_id', 'VARCHAR(16)'),
].join('');
