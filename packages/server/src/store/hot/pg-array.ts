/**
 * PostgreSQL arrays for the hot statements' array parameters (`unnest($n::bigint[], …)`,
 * `id = ANY($1::bigint[])`), in PostgreSQL's binary array format.
 *
 * node-postgres sends a Buffer parameter as binary (format code 1) and PostgreSQL reads it with
 * the parameter type's own receive function (`array_recv`, the element type's `int8recv`,
 * `textrecv`, …). A text literal instead had to be built here (every number printed, every
 * string quoted and escaped, the pieces joined: about a tenth of a busy node's allocations and 4 %
 * of its thread at 10,000 fires a second, docs/benchmarks.md), copied again by the client as a
 * string, and parsed back element by element by the database (`array_in`). The binary form is the
 * element's bytes: eight a bigint, four an int, a length and the UTF-8 bytes a text, NULL a
 * length of -1 — no quoting, so no text can be read as syntax.
 *
 * Each function's array must be cast to its type in the statement (`$n::bigint[]` for
 * `pgBigints`, `::int[]` for `pgInts`, `::smallint[]` for `pgSmallints`, `::text[]` for
 * `pgTexts`): the element type is written in the array's header and PostgreSQL refuses an array
 * of another. A number that is not an integer of the element type's range is refused here, with
 * its position, as the database would refuse it in a literal.
 */

export type PgNumberElement = number | null | undefined;
export type PgTextElement = string | null | undefined;

const INT8_OID = 20;
const INT2_OID = 21;
const INT4_OID = 23;
const TEXT_OID = 25;

/** ndim, has-nulls flag, element type, then the one dimension's length and lower bound. */
const HEADER_BYTES = 20;
const NULL_LENGTH = -1;
const TWO_TO_32 = 4_294_967_296;

/** A `bigint[]` of safe integers (ids, epoch milliseconds); null and undefined are NULL. */
export function pgBigints(values: readonly PgNumberElement[]): Buffer {
  return numbers(values, INT8_OID, 8);
}

/** An `int[]` (32-bit integers); null and undefined are NULL. */
export function pgInts(values: readonly PgNumberElement[]): Buffer {
  return numbers(values, INT4_OID, 4);
}

/** A `smallint[]` (16-bit integers); null and undefined are NULL. */
export function pgSmallints(values: readonly PgNumberElement[]): Buffer {
  return numbers(values, INT2_OID, 2);
}

/** A `text[]`; null and undefined are NULL. */
export function pgTexts(values: readonly PgTextElement[]): Buffer {
  const count = values.length;
  if (count === 0) return emptyArray(TEXT_OID);
  // A text the same as the one before it (a batch's statuses, handlers, addresses) reuses its length.
  let size = HEADER_BYTES + count * 4;
  let hasNulls = false;
  let last: string | undefined;
  let lastBytes = 0;
  for (let i = 0; i < count; i++) {
    const value = values[i];
    if (value === null || value === undefined) {
      hasNulls = true;
      continue;
    }
    if (value !== last) {
      last = value;
      lastBytes = Buffer.byteLength(value, 'utf8');
    }
    size += lastBytes;
  }
  const buffer = Buffer.allocUnsafe(size);
  let at = writeHeader(buffer, count, hasNulls, TEXT_OID);
  for (let i = 0; i < count; i++) {
    const value = values[i];
    if (value === null || value === undefined) {
      buffer.writeInt32BE(NULL_LENGTH, at);
      at += 4;
      continue;
    }
    // The buffer holds every text's bytes exactly: the write's count is the length counted above.
    const bytes = buffer.write(value, at + 4, 'utf8');
    buffer.writeInt32BE(bytes, at);
    at += 4 + bytes;
  }
  return buffer;
}

function numbers(values: readonly PgNumberElement[], oid: number, width: 2 | 4 | 8): Buffer {
  const count = values.length;
  if (count === 0) return emptyArray(oid);
  let present = 0;
  for (let i = 0; i < count; i++) {
    if (values[i] !== null && values[i] !== undefined) present++;
  }
  const buffer = Buffer.allocUnsafe(HEADER_BYTES + count * 4 + present * width);
  let at = writeHeader(buffer, count, present < count, oid);
  for (let i = 0; i < count; i++) {
    const value = values[i];
    if (value === null || value === undefined) {
      buffer.writeInt32BE(NULL_LENGTH, at);
      at += 4;
      continue;
    }
    if (!Number.isSafeInteger(value)) throw notAnInteger(value, i, width);
    buffer.writeInt32BE(width, at);
    if (width === 8) {
      // Two's complement in two 32-bit halves: the high one signed, the low one what is left.
      const high = Math.floor(value / TWO_TO_32);
      buffer.writeInt32BE(high, at + 4);
      buffer.writeUInt32BE(value - high * TWO_TO_32, at + 8);
    } else if (width === 4) {
      if (value < -2_147_483_648 || value > 2_147_483_647) throw notAnInteger(value, i, width);
      buffer.writeInt32BE(value, at + 4);
    } else {
      if (value < -32_768 || value > 32_767) throw notAnInteger(value, i, width);
      buffer.writeInt16BE(value, at + 4);
    }
    at += 4 + width;
  }
  return buffer;
}

function writeHeader(buffer: Buffer, count: number, hasNulls: boolean, oid: number): number {
  buffer.writeInt32BE(1, 0);
  buffer.writeInt32BE(hasNulls ? 1 : 0, 4);
  buffer.writeInt32BE(oid, 8);
  buffer.writeInt32BE(count, 12);
  buffer.writeInt32BE(1, 16);
  return HEADER_BYTES;
}

/** An array of no dimensions, as PostgreSQL sends `'{}'`. */
function emptyArray(oid: number): Buffer {
  const buffer = Buffer.allocUnsafe(12);
  buffer.writeInt32BE(0, 0);
  buffer.writeInt32BE(0, 4);
  buffer.writeInt32BE(oid, 8);
  return buffer;
}

function notAnInteger(value: number, index: number, width: 2 | 4 | 8): RangeError {
  const type = width === 8 ? 'a bigint' : width === 4 ? 'an int' : 'a smallint';
  return new RangeError(`element ${index} of ${type} array is not ${type}: ${value}`);
}
