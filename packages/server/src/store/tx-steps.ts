/**
 * A transaction written once for every dialect: a generator that yields its statements one at a
 * time and receives each one's result. On SQLite the generator runs to its end synchronously
 * inside `BEGIN IMMEDIATE` (inSqliteWrite), so no other statement of the process lands in the
 * middle of it; on PostgreSQL and MySQL it runs in a Kysely transaction. A generator that
 * returns early (a compare-and-set that changed nothing) commits what it did so far, which is
 * nothing beyond that statement.
 *
 * @example
 * const made = await runSteps(conn, function* () {
 *   if ((yield { kind: 'exec', query: casQuery }) === 0) return null;
 *   return yield { kind: 'insert', table: 'workflow_run', values: row };
 * });
 */
import type { CompiledQuery, Insertable, Kysely } from 'kysely';
import { inSqliteWrite, prepared, type StoreConnection } from './connection.js';
import type { Database } from './schema.js';

/**
 * One statement: `exec` answers the rows it changed, `rows` the rows it read, `insert` the id
 * of the row it inserted.
 */
export type Step =
  | { kind: 'exec'; query: CompiledQuery }
  | { kind: 'rows'; query: CompiledQuery }
  | { kind: 'insert'; table: 'fire'; values: Insertable<Database['fire']> }
  | { kind: 'insert'; table: 'workflow_run'; values: Insertable<Database['workflow_run']> };

export async function runSteps<R>(
  conn: StoreConnection,
  body: () => Generator<Step, R, unknown>,
): Promise<R> {
  if (conn.dialect === 'sqlite') {
    return inSqliteWrite(conn, () => {
      const steps = body();
      let next = steps.next();
      while (!next.done) {
        const step = next.value;
        let answer: unknown;
        if (step.kind === 'insert') {
          const insert = insertQuery(conn.db, step, true);
          answer = Number((prepared(conn, insert.sql).get(...insert.parameters) as { id: number }).id);
        } else if (step.kind === 'rows') {
          answer = prepared(conn, step.query.sql).all(...step.query.parameters);
        } else {
          answer = prepared(conn, step.query.sql).run(...step.query.parameters).changes;
        }
        next = steps.next(answer);
      }
      return next.value;
    });
  }
  return conn.db.transaction().execute(async (trx: Kysely<Database>) => {
    const steps = body();
    let next = steps.next();
    while (!next.done) {
      const step = next.value;
      let answer: unknown;
      if (step.kind === 'insert') {
        const result = await trx.executeQuery<{ id: number }>(
          insertQuery(trx, step, conn.dialect !== 'mysql'),
        );
        answer = Number(conn.dialect === 'mysql' ? result.insertId : result.rows[0]!.id);
      } else {
        const result = await trx.executeQuery(step.query);
        answer = step.kind === 'rows' ? result.rows : Number(result.numAffectedRows ?? 0n);
      }
      next = steps.next(answer);
    }
    return next.value;
  });
}

/** The insert of `step`, with `RETURNING id` where the dialect has it (MySQL answers the id itself). */
function insertQuery(
  db: Kysely<Database>,
  step: Extract<Step, { kind: 'insert' }>,
  returning: boolean,
): CompiledQuery {
  if (step.table === 'fire') {
    const insert = db.insertInto('fire').values(step.values);
    return (returning ? insert.returning('id') : insert).compile();
  }
  const insert = db.insertInto('workflow_run').values(step.values);
  return (returning ? insert.returning('id') : insert).compile();
}
