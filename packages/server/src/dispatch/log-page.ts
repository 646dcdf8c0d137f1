/**
 * One page of a run's log, cut from the executor's `log` answer as it streams in.
 *
 * A real XXL-JOB executor answers `log` with every line from `fromLineNum` to the end of the file,
 * however large: a 200 MiB log comes back as one 200 MiB JSON body. So the answer is never read
 * whole. Its JSON is scanned as it arrives; `logContent` is decoded piece by piece into lines
 * until the page holds `maxLines` lines or `maxBytes` bytes of UTF-8, and reading stops there (the
 * caller destroys the body, which closes that connection). Every other value is either small and
 * read with a cap (`code`, `msg`, the line numbers) or skipped without being kept. Memory is
 * bounded by the page, whatever the executor sends.
 *
 * A page that was cut ends with the last whole line that fitted: its `toLineNum` counts the
 * lines it holds, and the caller asks for `toLineNum + 1` next. A page that holds the executor's
 * whole answer keeps the executor's own line numbers and `isEnd` (a missing file answers
 * `toLineNum` 0 with a message in `logContent`, which is no line of the log).
 *
 * Real executors write `code` before the payload; should an answer put it after, the rest of the
 * body is scanned (not kept) until `code` comes, so a cut page is still bounded in memory.
 */
import type { LogResult } from '@tickwheel/protocol';

export interface LogPageLimits {
  /** Lines in one page at most. */
  maxLines: number;
  /** Bytes of UTF-8 `logContent` in one page at most (a longer single line is cut to fit). */
  maxBytes: number;
}

/**
 * Tickwheel executors answer at most 1,000 lines and 1 MiB; an XXL-JOB executor's answer is cut
 * here. Twice the executor's lines, so a Tickwheel page is never split further by line count.
 */
export const DEFAULT_LOG_PAGE_LIMITS: LogPageLimits = { maxLines: 2_000, maxBytes: 1024 * 1024 };

/** What follows a line cut to fit a page. */
export const CUT_LINE_MARK = ' … [line cut: longer than one log page]';

export interface LogPage extends LogResult {
  /** True when the executor's answer held more lines after `toLineNum`. */
  more: boolean;
}

/** The parts of a `log` answer the server uses. `page` is null when the answer carried no LogResult. */
export interface LogAnswer {
  code: number;
  msg: string | null;
  page: LogPage | null;
}

/** The answer is not a ReturnT carrying a LogResult (bad JSON, a missing or mistyped field). */
export class LogAnswerError extends Error {}

/** Reading stopped on purpose: everything the page needs has been read. */
class EnoughRead extends Error {}

const KEY_CHARS = 256;
const MSG_CHARS = 64 * 1024;
const TOKEN_CHARS = 64;
const MAX_DEPTH = 64;
const QUOTE_OR_BACKSLASH = /["\\]/g;
const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/**
 * Reads one page from `body` (the answer's bytes as they arrive). Stops reading as soon as the
 * page and the answer's code are known; the caller destroys the body if it was not read to its
 * end. Throws {@link LogAnswerError} for an answer that is not a ReturnT with a LogResult.
 */
export async function readLogPage(
  body: AsyncIterable<Uint8Array>,
  fromLineNum: number,
  limits: LogPageLimits = DEFAULT_LOG_PAGE_LIMITS,
): Promise<LogAnswer> {
  return new LogAnswerReader(new JsonScanner(body[Symbol.asyncIterator]()), fromLineNum, limits).read();
}

class LogAnswerReader {
  private code: number | undefined;
  private msg: string | null | undefined;
  private page: LogPage | undefined;
  /** The LogResult being read (set while its `logContent` streams). */
  private result: LogResultReader | undefined;

  constructor(
    private readonly json: JsonScanner,
    private readonly fromLineNum: number,
    private readonly limits: LogPageLimits,
  ) {}

  async read(): Promise<LogAnswer> {
    try {
      await this.json.readObject(async (key) => {
        await this.readMember(key);
        if (this.enough()) throw new EnoughRead();
      });
    } catch (err) {
      if (!(err instanceof EnoughRead)) throw err;
    }
    if (this.code === undefined) throw new LogAnswerError('answer is not a ReturnT: no integer code');
    this.page ??= this.result?.cutPage();
    return { code: this.code, msg: this.msg ?? null, page: this.page ?? null };
  }

  private async readMember(key: string): Promise<void> {
    switch (key) {
      case 'code':
        this.code = await this.json.readInteger(key);
        return;
      case 'msg':
        this.msg = await this.json.readShortStringOrNull(MSG_CHARS);
        return;
      case 'content':
      case 'data':
        // Tickwheel answers carry the payload under both keys: the first one is read.
        if (this.page === undefined && (await this.json.peek()) === '{') {
          this.result = new LogResultReader(this.json, this.fromLineNum, this.limits, () => this.codeKnown());
          this.page = await this.result.read();
        } else {
          await this.json.skipValue();
        }
        return;
      default:
        await this.json.skipValue();
    }
  }

  private codeKnown(): boolean {
    return this.code !== undefined;
  }

  /** A failure needs its message; a success its page. */
  private enough(): boolean {
    if (this.code === undefined) return false;
    return this.code === 200 ? this.page !== undefined : this.msg !== undefined;
  }
}

/** Reads the LogResult object, streaming `logContent` into a page. */
class LogResultReader {
  private from: number | undefined;
  private to: number | undefined;
  private isEnd: boolean | undefined;
  private readonly lines: PageLines;

  constructor(
    private readonly json: JsonScanner,
    private readonly requestedFrom: number,
    limits: LogPageLimits,
    private readonly mayStop: () => boolean,
  ) {
    this.lines = new PageLines(limits);
  }

  async read(): Promise<LogPage> {
    await this.json.readObject(async (key) => {
      switch (key) {
        case 'fromLineNum':
          this.from = await this.json.readInteger(key);
          return;
        case 'toLineNum':
          this.to = await this.json.readInteger(key);
          return;
        case 'isEnd':
          this.isEnd = (await this.json.readBooleanOrNull(key)) ?? false;
          return;
        case 'logContent':
          if ((await this.json.peek()) === 'n') {
            await this.json.readLiteral('null', key);
            return;
          }
          await this.json.readString(
            (piece) => this.lines.add(piece),
            () => this.lines.cut && this.mayStop(),
          );
          this.lines.end();
          return;
        default:
          await this.json.skipValue();
      }
    });
    const cut = this.cutPage();
    if (cut !== undefined) return cut;
    if (this.from === undefined || this.to === undefined) {
      throw new LogAnswerError('the log answer is not a LogResult: fromLineNum and toLineNum are required');
    }
    return {
      fromLineNum: this.from,
      toLineNum: this.to,
      logContent: this.lines.text(),
      isEnd: this.isEnd ?? false,
      more: false,
    };
  }

  /** The page of the lines taken before the cut; undefined while nothing was cut. */
  cutPage(): LogPage | undefined {
    if (!this.lines.cut) return undefined;
    const from = this.from ?? this.requestedFrom;
    return {
      fromLineNum: from,
      toLineNum: from + this.lines.count - 1,
      logContent: this.lines.text(),
      isEnd: false,
      more: true,
    };
  }
}

/**
 * The lines of one page, fed with decoded `logContent` pieces. Takes whole lines while they fit
 * the limits; the first line that does not (or any text after `maxLines` lines) marks the page
 * `cut`, and everything after is ignored. A line longer than the whole byte limit is cut to fit
 * and marked, so every page holds at least one line and the reader always moves on.
 */
class PageLines {
  private readonly taken: string[] = [];
  private bytes = 0;
  private partial: string[] = [];
  private partialChars = 0;
  private partialTooLong = false;
  cut = false;

  constructor(private readonly limits: LogPageLimits) {}

  get count(): number {
    return this.taken.length;
  }

  text(): string {
    return this.taken.join('');
  }

  add(piece: string): void {
    let start = 0;
    while (!this.cut && start < piece.length) {
      if (this.taken.length >= this.limits.maxLines) {
        this.cut = true;
        return;
      }
      const newline = piece.indexOf('\n', start);
      if (newline < 0) {
        this.addPartial(piece.slice(start));
        return;
      }
      this.addPartial(piece.slice(start, newline + 1));
      this.completeLine();
      start = newline + 1;
    }
  }

  /** The content ended: a last line without `\n` is a line too. */
  end(): void {
    if (!this.cut && this.partialChars > 0) {
      if (this.taken.length >= this.limits.maxLines) this.cut = true;
      else this.completeLine();
    }
  }

  private addPartial(segment: string): void {
    if (this.partialTooLong) return;
    // Characters never outnumber UTF-8 bytes: past maxBytes characters the line cannot fit whole.
    const room = this.limits.maxBytes - this.partialChars;
    if (segment.length > room) {
      this.partial.push(segment.slice(0, room));
      this.partialChars += room;
      this.partialTooLong = true;
      return;
    }
    this.partial.push(segment);
    this.partialChars += segment.length;
  }

  private completeLine(): void {
    let line = this.partial.join('');
    const tooLong = this.partialTooLong;
    this.partial = [];
    this.partialChars = 0;
    this.partialTooLong = false;
    let size = Buffer.byteLength(line);
    if (tooLong || size > this.limits.maxBytes) {
      if (this.taken.length > 0) {
        this.cut = true;
        return;
      }
      line = cutLine(line, this.limits.maxBytes);
      size = Buffer.byteLength(line);
    } else if (this.bytes + size > this.limits.maxBytes) {
      this.cut = true;
      return;
    }
    this.taken.push(line);
    this.bytes += size;
  }
}

/** The line shortened to `maxBytes` of UTF-8 with the cut mark and its `\n`. */
function cutLine(line: string, maxBytes: number): string {
  // Pages too small for the mark (only in tests) get the line cut without it.
  const mark = Buffer.byteLength(CUT_LINE_MARK) + 1 < maxBytes ? CUT_LINE_MARK : '';
  const room = Math.max(0, maxBytes - Buffer.byteLength(mark) - 1);
  const bytes = Buffer.from(line, 'utf8');
  let end = Math.min(room, bytes.length);
  // Back off to the start of a character: a UTF-8 continuation byte is 10xxxxxx.
  while (end > 0 && end < bytes.length && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return `${bytes.subarray(0, end).toString('utf8')}${mark}\n`;
}

/**
 * A pull scanner over JSON text arriving in chunks: it holds one decoded chunk at a time, so a
 * value it skips or streams costs no memory beyond that chunk.
 */
class JsonScanner {
  private text = '';
  private pos = 0;
  private ended = false;
  private readonly decoder = new TextDecoder('utf-8');
  private depth = 0;

  constructor(private readonly chunks: AsyncIterator<Uint8Array>) {}

  /** The next character after whitespace, not consumed. */
  async peek(): Promise<string> {
    for (;;) {
      if (!(await this.fill())) throw new LogAnswerError('the answer ended in the middle of its JSON');
      const c = this.text[this.pos] as string;
      if (!WHITESPACE.has(c)) return c;
      this.pos++;
    }
  }

  /** Reads an object, calling `onMember` for each key with the scanner at its value. */
  async readObject(onMember: (key: string) => Promise<void>): Promise<void> {
    await this.expect('{');
    if (++this.depth > MAX_DEPTH) throw new LogAnswerError('the answer nests too deep');
    if ((await this.peek()) === '}') {
      this.pos++;
      this.depth--;
      return;
    }
    for (;;) {
      if ((await this.peek()) !== '"') throw this.unexpected('an object key');
      const key = await this.readShortString(KEY_CHARS);
      await this.expect(':');
      await onMember(key);
      const next = await this.next();
      if (next === '}') break;
      if (next !== ',') throw this.unexpected("',' or '}'", next);
    }
    this.depth--;
  }

  async readInteger(field: string): Promise<number> {
    const token = await this.readToken();
    const value = Number(token);
    if (token === '' || !Number.isSafeInteger(value)) {
      throw new LogAnswerError(`${field}: expected an integer, got ${JSON.stringify(token)}`);
    }
    return value;
  }

  async readBooleanOrNull(field: string): Promise<boolean | null> {
    const token = await this.readToken();
    if (token === 'true') return true;
    if (token === 'false') return false;
    if (token === 'null') return null;
    throw new LogAnswerError(`${field}: expected a boolean, got ${JSON.stringify(token)}`);
  }

  async readLiteral(literal: string, field: string): Promise<void> {
    const token = await this.readToken();
    if (token !== literal)
      throw new LogAnswerError(`${field}: expected ${literal}, got ${JSON.stringify(token)}`);
  }

  async readShortStringOrNull(maxChars: number): Promise<string | null> {
    if ((await this.peek()) === 'n') {
      await this.readLiteral('null', 'msg');
      return null;
    }
    if ((await this.peek()) !== '"') {
      await this.skipValue();
      return null;
    }
    return this.readShortString(maxChars);
  }

  /** A string, of which the first `maxChars` characters are kept. */
  async readShortString(maxChars: number): Promise<string> {
    const pieces: string[] = [];
    let chars = 0;
    await this.readString((piece) => {
      if (chars >= maxChars) return;
      const kept = piece.slice(0, maxChars - chars);
      pieces.push(kept);
      chars += kept.length;
    });
    return pieces.join('');
  }

  /**
   * Reads a string, handing its decoded text to `onPiece` in pieces as it arrives. When
   * `stopNow` says so after a piece, reading ends there ({@link EnoughRead}).
   */
  async readString(onPiece?: (piece: string) => void, stopNow?: () => boolean): Promise<void> {
    await this.expect('"');
    for (;;) {
      if (!(await this.fill())) throw new LogAnswerError('the answer ended inside a string');
      QUOTE_OR_BACKSLASH.lastIndex = this.pos;
      const special = QUOTE_OR_BACKSLASH.exec(this.text);
      const end = special === null ? this.text.length : special.index;
      if (end > this.pos) {
        onPiece?.(this.text.slice(this.pos, end));
        this.pos = end;
        if (stopNow?.()) throw new EnoughRead();
      }
      if (special === null) continue;
      this.pos++;
      if (special[0] === '"') return;
      onPiece?.(await this.readEscape());
      if (stopNow?.()) throw new EnoughRead();
    }
  }

  /** Skips any value without keeping it. */
  async skipValue(): Promise<void> {
    const c = await this.peek();
    if (c === '{') {
      await this.readObject(() => this.skipValue());
    } else if (c === '[') {
      await this.skipArray();
    } else if (c === '"') {
      await this.readString();
    } else {
      await this.readToken();
    }
  }

  private async skipArray(): Promise<void> {
    await this.expect('[');
    if (++this.depth > MAX_DEPTH) throw new LogAnswerError('the answer nests too deep');
    if ((await this.peek()) === ']') {
      this.pos++;
    } else {
      for (;;) {
        await this.skipValue();
        const next = await this.next();
        if (next === ']') break;
        if (next !== ',') throw this.unexpected("',' or ']'", next);
      }
    }
    this.depth--;
  }

  /** The character after a backslash, decoded. */
  private async readEscape(): Promise<string> {
    const c = await this.nextRaw();
    const simple = ESCAPES[c];
    if (simple !== undefined) return simple;
    if (c !== 'u') throw new LogAnswerError(`invalid escape \\${c} in a string`);
    let hex = '';
    for (let i = 0; i < 4; i++) hex += await this.nextRaw();
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new LogAnswerError(`invalid escape \\u${hex} in a string`);
    return String.fromCharCode(Number.parseInt(hex, 16));
  }

  /** A number or a literal (`true`, `false`, `null`): the characters up to the next delimiter. */
  private async readToken(): Promise<string> {
    await this.peek();
    let token = '';
    while (await this.fill()) {
      const c = this.text[this.pos] as string;
      if (!/[0-9a-zA-Z.+-]/.test(c)) break;
      token += c;
      this.pos++;
      if (token.length > TOKEN_CHARS) throw new LogAnswerError('a value in the answer is too long');
    }
    if (token === '') throw this.unexpected('a value');
    return token;
  }

  private async expect(c: string): Promise<void> {
    const next = await this.next();
    if (next !== c) throw this.unexpected(`'${c}'`, next);
  }

  /** The next character after whitespace, consumed. */
  private async next(): Promise<string> {
    const c = await this.peek();
    this.pos++;
    return c;
  }

  /** The next character as it is (inside a string), consumed. */
  private async nextRaw(): Promise<string> {
    if (!(await this.fill())) throw new LogAnswerError('the answer ended inside a string');
    return this.text[this.pos++] as string;
  }

  /** Makes at least one unread character available; false at the end of the answer. */
  private async fill(): Promise<boolean> {
    while (this.pos >= this.text.length) {
      if (this.ended) return false;
      const chunk = await this.chunks.next();
      this.pos = 0;
      if (chunk.done) {
        this.ended = true;
        this.text = this.decoder.decode();
      } else {
        this.text = this.decoder.decode(chunk.value, { stream: true });
      }
    }
    return true;
  }

  private unexpected(what: string, got?: string): LogAnswerError {
    const found = got ?? (this.pos < this.text.length ? this.text[this.pos] : 'the end');
    return new LogAnswerError(`the answer is not JSON: expected ${what}, found ${JSON.stringify(found)}`);
  }
}
