/**
 * The migrations of each dialect, in order. They are TypeScript modules exporting their SQL (not
 * .sql files) so `tsc -b` carries them into dist with no copy step: the compiled server finds
 * its migrations wherever it is installed. Add a migration as `<dialect>/NNNN_name.ts` for all
 * three dialects and list it here with the same version number.
 */
import type { DialectName } from '../database-url.js';
import mysqlInit from './mysql/0001_init.js';
import postgresInit from './postgres/0001_init.js';
import sqliteInit from './sqlite/0001_init.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Readonly<Record<DialectName, readonly Migration[]>> = {
  sqlite: [{ version: 1, name: 'init', sql: sqliteInit }],
  postgres: [{ version: 1, name: 'init', sql: postgresInit }],
  mysql: [{ version: 1, name: 'init', sql: mysqlInit }],
};

/** Splits a migration into statements: each ends with `;` at the end of a line. */
export function splitStatements(sql: string): string[] {
  return sql
    .split(/;[ \t]*(?:\r?\n|$)/)
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0);
}
