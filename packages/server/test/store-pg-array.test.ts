/**
 * The hot statements' array parameters are written in PostgreSQL's binary array format by hand
 * (store/hot/pg-array.ts): PostgreSQL must read each back to exactly the values given — texts
 * that look like a literal's syntax, unicode, NULLs, the integer types' edges — as it reads
 * node-postgres's own text conversion, and refuse what it would refuse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgBigints, pgInts, pgSmallints, pgTexts } from '../src/store/hot/pg-array.js';
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
const BIGINTS = [
  0,
  1,
  -1,
  2_147_483_647,
  2_147_483_648,
  4_294_967_295,
  4_294_967_296,
  -4_294_967_296,
  -4_294_967_297,
  1_796_607_643_303,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  null,
];
const INTS = [200, 500, -1, 2_147_483_647, -2_147_483_648, null, 0];
const SMALLINTS = [0, 1, -1, 32_767, -32_768, null];

describe('PostgreSQL binary arrays of the hot statements', () => {
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
    expect(await readBack(pgTexts(TEXTS), 'text')).toEqual(expected);
    expect(await readBack(TEXTS, 'text')).toEqual(expected);
    expect(await readBack(pgTexts([null, undefined]), 'text')).toEqual([null, null]);
  });

  it('reads back bigint, int and smallint arrays at their edges, and empty arrays', async () => {
    // bigint[] comes back as strings (the store parses scalar bigints only).
    const numbers = (values: unknown[]) => values.map((value) => (value === null ? null : Number(value)));
    expect(numbers(await readBack(pgBigints(BIGINTS), 'bigint'))).toEqual(BIGINTS);
    expect(await readBack(pgInts(INTS), 'int')).toEqual(INTS);
    expect(await readBack(pgSmallints(SMALLINTS), 'smallint')).toEqual(SMALLINTS);
    for (let value = 1_796_607_000_000; value < 1_796_607_000_000 + 20_000_000; value += 999_983) {
      expect(numbers(await readBack(pgBigints([value, -value]), 'bigint'))).toEqual([value, -value]);
    }
    expect(await readBack(pgBigints([]), 'bigint')).toEqual([]);
    expect(await readBack(pgInts([]), 'int')).toEqual([]);
    expect(await readBack(pgTexts([]), 'text')).toEqual([]);
  });

  it('gives one element per value, unnested beside another array in order', async () => {
    const texts = TEXTS.map((text) => text ?? null);
    const ids = texts.map((_, i) => i + 1);
    const result = await pool().query<{ id: number; text: string | null }>(
      'SELECT * FROM unnest($1::bigint[], $2::text[]) AS v(id, text)',
      [pgBigints(ids), pgTexts(texts)],
    );
    expect(result.rows).toEqual(ids.map((id, i) => ({ id, text: texts[i] })));
  });

  it('refuses a number that is not an integer of the type, naming its place, as PostgreSQL refuses it in text', () => {
    expect(() => pgBigints([1, 1.5])).toThrow(/element 1 of a bigint array is not a bigint: 1.5/);
    expect(() => pgBigints([2 ** 53])).toThrow(/not a bigint/);
    expect(() => pgBigints([Number.NaN])).toThrow(/not a bigint/);
    expect(() => pgInts([2_147_483_648])).toThrow(/element 0 of an int array is not an int: 2147483648/);
    expect(() => pgSmallints([32_768])).toThrow(/not a smallint/);
  });

  it('is refused by PostgreSQL as an array of another element type', async () => {
    await expect(readBack(pgInts([1]), 'bigint')).rejects.toThrow(
      /element type 23 \(integer\) instead of expected 20 \(bigint\)/,
    );
    await expect(readBack(pgBigints([1]), 'text')).rejects.toThrow(
      /element type 20 \(bigint\) instead of expected 25 \(text\)/,
    );
  });
});
