/**
 * PostgreSQL array literals for the hot statements' array parameters (`unnest($n::bigint[], …)`,
 * `id = ANY($1::bigint[])`).
 *
 * node-postgres turns a JavaScript array parameter into a literal itself, but runs every element
 * through its general value conversion and two regular-expression replacements, numbers
 * included. A claim of 500 jobs sends nineteen such arrays, a result batch fourteen: at 10,000
 * fires a second that conversion was about 6 % of a busy node's thread (bench/fire, a CPU
 * profile of the server at PostgreSQL spread 10,000; docs/benchmarks.md). The literal written
 * here is the one PostgreSQL reads back to the same values: numbers as they print, each string
 * double-quoted with `"` and `\` escaped (so `NULL`, commas, braces and blanks stay text), null
 * and undefined as an unquoted NULL.
 */
export type PgArrayElement = number | string | null | undefined;

/**
 * The array literal of `values` (see the file comment), for a parameter cast to an array type.
 *
 * Built by one `join` of the elements' texts: appending element by element made a string object
 * for every `+=` (two an element), copied again when the literal was sent; with them the literals
 * were 11 % of a busy node's allocations, 8.6 % without (the literal itself and the numbers'
 * texts; bench/fire, docs/benchmarks.md). A string element the same as the one before it (a
 * batch's statuses, trigger types, addresses) reuses its quoted text.
 */
export function pgArray(values: readonly PgArrayElement[]): string {
  const texts: (string | number)[] = new Array(values.length);
  let lastString: string | undefined;
  let lastQuoted = '';
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === null || value === undefined) texts[i] = 'NULL';
    else if (typeof value === 'number') texts[i] = value >= 2_147_483_648 ? largeNumberText(value) : value;
    else {
      if (value !== lastString) {
        lastString = value;
        lastQuoted = quoted(value);
      }
      texts[i] = lastQuoted;
    }
  }
  return `{${texts.join(',')}}`;
}

const ZEROS = ['', '0', '00', '000', '0000', '00000', '000000'];

/**
 * A number at or above 2^31 as it prints. An epoch millisecond (a fire's time, a result's) is past
 * the small integers V8 keeps their texts of, and its own printing is its general one for doubles:
 * written as two small integers (its digits but the last seven, and those seven) it
 * costs a third as much — five or six such numbers a fire go into the statements' arrays. Others
 * (not integers, 10^15 and above) print as they do.
 */
export function largeNumberText(value: number): string | number {
  if (value >= 1e15 || !Number.isInteger(value)) return value;
  const high = Math.floor(value / 1e7);
  const low = `${value - high * 1e7}`;
  return `${high}${ZEROS[7 - low.length]}${low}`;
}

function quoted(text: string): string {
  const escaped = text.includes('"') || text.includes('\\') ? text.replace(/["\\]/g, '\\$&') : text;
  return `"${escaped}"`;
}
