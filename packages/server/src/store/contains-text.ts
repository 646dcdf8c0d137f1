/**
 * The listings' substring filters (a job's name, an app's title): `column LIKE '%text%'` with
 * the text matched literally on every dialect. `%` and `_` in the text are escaped, and so is
 * the escape character itself. The escape is `!`, named in an explicit ESCAPE clause: SQLite has
 * no default escape character, while PostgreSQL's and MySQL's default, `\`, would need doubling
 * in MySQL's string literals (and makes a `\` typed into a filter escape the character after it).
 */
import { type Expression, type SqlBool, sql } from 'kysely';

const ESCAPE = '!';

/** `column` holds `text` (as typed: `%`, `_` and `!` are plain characters). */
export function containsText(column: string, text: string): Expression<SqlBool> {
  const escaped = text.replace(/[!%_]/g, (char) => `${ESCAPE}${char}`);
  return sql<SqlBool>`${sql.ref(column)} like ${`%${escaped}%`} escape ${sql.lit(ESCAPE)}`;
}
