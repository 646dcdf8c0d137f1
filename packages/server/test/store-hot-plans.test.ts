/**
 * The hot SQLite statements take a batch's rows as a JSON array (`json_each`): each must look
 * the batch's ids up by primary key. SQLite, left to itself, would rather read the status index
 * whole (every open record) and probe the JSON for each — a statement per batch that grows with
 * the table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_ADVANCE, SQLITE_RECORD, SQLITE_VALID_LEASES } from '../src/store/hot/claim.js';
import { SQLITE_MARK, SQLITE_PENDING } from '../src/store/hot/dispatch-marks.js';
import { SQLITE_APPS, SQLITE_FIRES, SQLITE_JOBS } from '../src/store/hot/due-load.js';
import { SQLITE_FINISH } from '../src/store/hot/finish.js';
import type { Store } from '../src/store/index.js';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';

describe('hot statements on sqlite', () => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    store = await database.open();
  });

  afterAll(async () => {
    await database.drop();
  });

  function plan(sql: string, params: unknown[]): string[] {
    const conn = store.connection;
    if (conn.dialect !== 'sqlite') throw new Error('unreachable');
    return (conn.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map(
      (row) => row.detail,
    );
  }

  it.each([
    ['finish', SQLITE_FINISH, ['[]'], 'fire'],
    ['mark: pending count', SQLITE_PENDING, ['[]'], 'fire'],
    ['mark', SQLITE_MARK, ['dispatched', '[]'], 'fire'],
    ['claim: advance', SQLITE_ADVANCE, ['[]'], 'job'],
    ['load: fires', SQLITE_FIRES, ['[]'], 'fire'],
    ['load: jobs', SQLITE_JOBS, ['[]'], 'job'],
    ['load: apps', SQLITE_APPS, ['[]'], 'app_group'],
  ] as const)('%s looks its rows up by primary key', (_name, sql, params, table) => {
    const details = plan(sql, [...params]);
    expect(details).toContainEqual(
      expect.stringMatching(new RegExp(`^SEARCH ${table} USING INTEGER PRIMARY KEY`)),
    );
    expect(
      details.filter(
        (detail) => detail.startsWith(`SCAN ${table}`) || /USING (COVERING )?INDEX/.test(detail),
      ),
    ).toEqual([]);
  });

  it('claim: the lease check and the insert compile', () => {
    expect(plan(SQLITE_VALID_LEASES, ['[]', 'node', 0]).length).toBeGreaterThan(0);
    expect(plan(SQLITE_RECORD, [0, '[]']).length).toBeGreaterThan(0);
  });
});
