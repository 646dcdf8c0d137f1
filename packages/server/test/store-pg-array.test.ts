/**
 * The hot statements' array parameters are written as PostgreSQL array literals by hand
 * (store/hot/pg-array.ts): PostgreSQL must read each back to exactly the values given, strings
 * that look like syntax included, as it reads node-postgres's own conversion.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgArray } from '../src/store/hot/pg-array.js';
import type { Store } from '../src/store/index.js';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';

const TEXTS = [
  'plain',
  '',
  'NULL',
  'null',
  ' padded ',
  'a,b',
  '{braces}',
  'say "hi"',
  // The same text again: written from the one before it.
  'say "hi"',
  'back\\slash',
  '\\"',
  'trailing\\',
  'line\nbreak\ttab',
  'unicode ✓ 定时 🚀',
  "it's",
  'http://127.0.0.1:9999/',
  'http://127.0.0.1:9999/',
  null,
  'http://127.0.0.1:9999/',
  undefined,
];
const BIGINTS = [0, 1, -1, 1_700_000_000_123, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, null];
const INTS = [200, 500, -1, 2_147_483_647, null, 0];
/** Epoch milliseconds and the edges of the large numbers' own printing (pg-array.ts, largeNumberText). */
const LARGE = [
  2_147_483_647,
  2_147_483_648,
  1_796_607_000_003,
  1_796_607_643_303,
  1_790_000_000_000,
  1_799_999_999_999,
  10_000_000_000,
  10_000_000_001,
  999_999_999_999_999,
  1e15,
  Number.MAX_SAFE_INTEGER,
];

describe('PostgreSQL array literals of the hot statements', () => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    store = await database.open();
  });
  afterAll(async () => {
    await database.drop();
  });

  function pool() {
    const conn = store.connection;
    if (conn.dialect !== 'postgres') throw new Error('unreachable');
    return conn.pool;
  }

  async function readBack(literal: unknown, type: string): Promise<unknown[]> {
    const result = await pool().query<{ value: unknown[] }>(`SELECT $1::${type}[] AS value`, [literal]);
    return result.rows[0]!.value;
  }

  it('reads back every text as given, and null and undefined as NULL', async () => {
    const expected = TEXTS.map((text) => text ?? null);
    expect(await readBack(pgArray(TEXTS), 'text')).toEqual(expected);
    expect(await readBack(TEXTS, 'text')).toEqual(expected);
  });

  it('reads back bigint and int arrays, and an empty array', async () => {
    // bigint[] comes back as strings (the store parses scalar bigints only).
    const numbers = (values: unknown[]) => values.map((value) => (value === null ? null : Number(value)));
    expect(numbers(await readBack(pgArray(BIGINTS), 'bigint'))).toEqual(BIGINTS);
    expect(await readBack(pgArray(INTS), 'int')).toEqual(INTS);
    expect(await readBack(pgArray([]), 'bigint')).toEqual([]);
    expect(await readBack(pgArray([]), 'text')).toEqual([]);
  });

  it('writes a large number as it prints, and PostgreSQL reads it back as given', async () => {
    expect(pgArray(LARGE)).toBe(`{${LARGE.map(String).join(',')}}`);
    expect(pgArray([2_147_483_648.5, 1e21, -1_796_607_643_303])).toBe('{2147483648.5,1e+21,-1796607643303}');
    for (let value = 1_796_607_000_000; value < 1_796_607_000_000 + 20_000_000; value += 999_983) {
      expect(pgArray([value])).toBe(`{${value}}`);
    }
    const read = await readBack(pgArray(LARGE), 'bigint');
    expect(read.map(Number)).toEqual(LARGE);
  });

  it('gives one element per value, unnested beside another array in order', async () => {
    const texts = TEXTS.map((text) => text ?? null);
    const ids = texts.map((_, i) => i + 1);
    const result = await pool().query<{ id: number; text: string | null }>(
      'SELECT * FROM unnest($1::bigint[], $2::text[]) AS v(id, text)',
      [pgArray(ids), pgArray(texts)],
    );
    expect(result.rows).toEqual(ids.map((id, i) => ({ id, text: texts[i] })));
  });

  it('a number that is not an integer is refused for a bigint array, as node-postgres’s own is', async () => {
    await expect(readBack(pgArray([1.5]), 'bigint')).rejects.toThrow(/invalid input syntax for type bigint/);
    await expect(readBack([1.5], 'bigint')).rejects.toThrow(/invalid input syntax for type bigint/);
  });
});
