/**
 * Reads what `tickwheel import-xxl-job` takes from an XXL-JOB database: executor groups
 * (`xxl_job_group`), jobs (`xxl_job_info`) and script versions (`xxl_job_logglue`). Rows are read
 * with `SELECT *` so the columns of every version from 2.x to 3.x come as they are: 2.3 replaced
 * `job_cron` with `schedule_type`/`schedule_conf`/`misfire_strategy`, 2.4 added the group's
 * `update_time`, 3.x widened some columns. The mapping decides what each column means.
 */
import type { Connection } from 'mysql2/promise';
import { CliFailure } from '../rest-command.js';

export type XxlRow = Record<string, unknown>;

export interface XxlDatabase {
  groups: XxlRow[];
  jobs: XxlRow[];
  /** Script versions, by job id and then id: oldest first. */
  glueVersions: XxlRow[];
}

/** @throws CliFailure when the database cannot be reached (exit 3) or lacks XXL-JOB's tables (exit 1). */
export async function readXxlDatabase(url: string): Promise<XxlDatabase> {
  if (!/^(mysql|mariadb):\/\//.test(url)) {
    throw new CliFailure(
      'TW_ERR_INVALID_OPTION',
      '--from must be a mysql:// URL, e.g. mysql://user:password@host:3306/xxl_job',
    );
  }
  let connection: Connection;
  try {
    // Loaded here: only this command needs a MySQL driver.
    const mysql = await import('mysql2/promise');
    connection = await mysql.createConnection({
      uri: url.replace(/^mariadb:/, 'mysql:'),
      // Times are not imported; strings avoid any time-zone conversion of theirs.
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: false,
      connectTimeout: 10_000,
    });
  } catch (err) {
    throw new CliFailure(
      'TW_ERR_STORE_UNAVAILABLE',
      `cannot connect to the XXL-JOB database ${withoutPassword(url)}: ${(err as Error).message}`,
    );
  }
  try {
    return {
      groups: await selectAll(connection, 'SELECT * FROM xxl_job_group ORDER BY id'),
      jobs: await selectAll(connection, 'SELECT * FROM xxl_job_info ORDER BY id'),
      glueVersions: await selectAll(connection, 'SELECT * FROM xxl_job_logglue ORDER BY job_id, id'),
    };
  } finally {
    await connection.end();
  }
}

async function selectAll(connection: Connection, sql: string): Promise<XxlRow[]> {
  try {
    const [rows] = await connection.query(sql);
    return rows as XxlRow[];
  } catch (err) {
    throw new CliFailure(
      'TW_ERR_INVALID_OPTION',
      `the database of --from does not hold XXL-JOB's tables (${(err as Error).message})`,
    );
  }
}

/** The URL as it may be printed: `mysql://root:***@host/db`. */
function withoutPassword(url: string): string {
  return url.replace(/^(\w+:\/\/[^:/@]*:)[^@]*@/, '$1***@');
}
