/**
 * The database server's CPU over a case's window, for PostgreSQL and MySQL cases (SQLite runs in
 * the server's process, whose CPU is counted there): the user + system time of every process of
 * the database server on this machine, read from `/proc/<pid>/stat`. The database serves nothing
 * else while a case runs (the bench is run alone), so this is what the case asks of it. A backend
 * that ends within the window is left out, its time in the window with it (the harness's own
 * pool closes a connection idle for 10 s, the one that seeded the jobs among them; the server's
 * pool keeps its connections open).
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Store } from '@tickwheel/server/internal';

/** The process names of each database server. */
const PROCESS_NAMES: Record<'postgres' | 'mysql', readonly string[]> = {
  postgres: ['postgres'],
  mysql: ['mariadbd', 'mysqld'],
};

/** Clock ticks a second of `/proc/<pid>/stat` times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * The CPU seconds the database server's processes used since `before` (a `databaseCpuByProcess`
 * reading): each process alive now, less what it had used then (a process started since counts
 * whole). A process that ended meanwhile is left out rather than taken off: a sum over all
 * processes went negative when a connection that seeded a million jobs before the window closed
 * within it.
 */
export function databaseCpuSecondsSince(
  store: 'sqlite' | 'postgres' | 'mysql',
  before: ReadonlyMap<number, number> | undefined,
): number | undefined {
  const now = databaseCpuByProcess(store);
  if (now === undefined || before === undefined) return undefined;
  let seconds = 0;
  for (const [pid, used] of now) seconds += Math.max(0, used - (before.get(pid) ?? 0));
  return seconds;
}

/** CPU seconds used so far by each process (by pid) of the store's database server; undefined without /proc. */
export function databaseCpuByProcess(
  store: 'sqlite' | 'postgres' | 'mysql',
): Map<number, number> | undefined {
  if (store === 'sqlite') return undefined;
  const names = PROCESS_NAMES[store];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const byProcess = new Map<number, number>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    // pid (comm) state …: comm may hold spaces and parentheses, so split after its last ")".
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    if (!names.includes(comm)) continue;
    const fields = stat.slice(close + 2).split(' ');
    // Fields 14 and 15 of the line (utime, stime) are the 12th and 13th after the comm.
    byProcess.set(Number(entry), (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND);
  }
  return byProcess;
}

/**
 * PostgreSQL's write-ahead log position, in bytes (undefined for the other stores): the log a
 * window writes is what every change it made cost the database to record, a figure that does not
 * move with the machine's speed as CPU time does.
 */
export async function walPosition(store: Store): Promise<bigint | undefined> {
  const conn = store.connection;
  if (conn.dialect !== 'postgres') return undefined;
  const result = await conn.pool.query<{ bytes: string }>(
    "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS bytes",
  );
  return BigInt(result.rows[0]!.bytes);
}
