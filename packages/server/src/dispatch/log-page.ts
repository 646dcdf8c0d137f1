/**
 * One page of a run's log, cut from the executor's `log` answer as it streams in.
 *
 * A real XXL-JOB executor answers `log` with every line from `fromLineNum` to the end of the file,
 * however large: a 200 MiB log comes back as one 200 MiB JSON body. So the answer is never read
 * whole. stream-json tokenizes it chunk by chunk as it arrives, every string in pieces;
 * `logContent` is cut into lines until the page holds `maxLines` lines or `maxBytes` bytes of
 * UTF-8, and reading stops there (the caller destroys the body, which closes that connection).
 * Every other value is either small and kept with a cap (`code`, `msg`, the line numbers) or
 * skipped as it passes. Memory is bounded by the page and one chunk, whatever the executor sends.
 *
 * A page that was cut ends with the last whole line that fitted: its `toLineNum` counts the
 * lines it holds, and the caller asks for `toLineNum + 1` next. A page that holds the executor's
 * whole answer keeps the executor's own line numbers and `isEnd` (a missing file answers
 * `toLineNum` 0 with a message in `logContent`, which is no line of the log).
 *
 * Real executors write `code` before the payload; should an answer put it after, the rest of the
 * body is tokenized (not kept) until `code` comes, so a cut page is still bounded in memory.
 */
import type { LogResult } from '@tickwheel/protocol';
import { jsonParser, type Token } from 'stream-json/core/parser.js';

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

const KEY_CHARS = 256;
const MSG_CHARS = 64 * 1024;
const NUMBER_CHARS = 64;
const MAX_DEPTH = 64;

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
  const reader = new LogAnswerReader(fromLineNum, limits);
  // Every key, string and number comes in chunks and none is packed whole: the tokenizer keeps
  // no value of the answer, so its memory is one chunk of the body (and that chunk's tokens)
  // whatever the answer holds.
  const tokenize = jsonParser({ packValues: false, streamValues: true });
  const decoder = new TextDecoder('utf-8');
  const chunks = body[Symbol.asyncIterator]();
  // One chunk is pulled at a time and its tokens taken before the next, so reading stops
  // within the chunk where the page became known.
  for (;;) {
    const chunk = await chunks.next();
    const text = chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
    for (const token of tokensOf(tokenize, text)) {
      reader.take(token);
      if (reader.stopped) return reader.answer();
    }
    if (chunk.done) throw reader.endedEarly();
  }
}

function tokensOf(tokenize: ReturnType<typeof jsonParser>, text: string): readonly Token[] {
  if (text === '') return [];
  let tokens: ReturnType<typeof tokenize>;
  try {
    tokens = tokenize(text);
  } catch (err) {
    throw new LogAnswerError(`the answer is not JSON: ${(err as Error).message}`);
  }
  return typeof tokens === 'symbol' ? [] : tokens.values;
}

/** What a value of the answer is to the page; `skip` for everything it does not use. */
type Slot = 'code' | 'msg' | 'payload' | 'fromLineNum' | 'toLineNum' | 'isEnd' | 'logContent' | 'skip';

/**
 * Follows the answer's tokens: the ReturnT's `code`, `msg` and first LogResult payload
 * (`content` or `data`), whose `logContent` streams into the page's lines. Every other value is
 * skipped as its tokens pass.
 */
class LogAnswerReader {
  private code: number | undefined;
  private msg: string | null | undefined;
  private page: LogPage | undefined;
  /** The LogResult being read, then the one that was read. */
  private result: LogResultReader | undefined;
  /** Open objects and arrays: the answer's members are at depth 1, the payload's at depth 2. */
  private depth = 0;
  private inPayload = false;
  private member = '';
  private field = '';
  /** Where the key, string or number being read goes, and what of it is kept. */
  private slot: Slot = 'skip';
  private text: CappedText | null = null;
  /** Inside a key or a string (to say where a body that ends early ended). */
  private inText = false;
  /** Reading ends: everything the page needs has been read, or the answer's object closed. */
  stopped = false;

  constructor(
    private readonly fromLineNum: number,
    private readonly limits: LogPageLimits,
  ) {}

  take(token: Token): void {
    switch (token.name) {
      case 'startObject':
      case 'startArray':
        this.containerStarts(token.name === 'startObject');
        return;
      case 'endObject':
      case 'endArray':
        this.containerEnds();
        return;
      case 'startKey':
        this.inText = true;
        this.text =
          this.depth === 1 || (this.depth === 2 && this.inPayload) ? new CappedText(KEY_CHARS) : null;
        return;
      case 'endKey':
        this.keyEnds();
        return;
      case 'startString':
        this.inText = true;
        this.stringStarts();
        return;
      case 'stringChunk':
        if (this.slot === 'logContent') this.addLogContent(token.value);
        else this.text?.add(token.value);
        return;
      case 'endString':
        this.inText = false;
        this.stringEnds();
        return;
      case 'startNumber':
        this.numberStarts();
        return;
      case 'numberChunk':
        this.text?.add(token.value);
        if (this.text?.overflowed) throw new LogAnswerError('a value in the answer is too long');
        return;
      case 'endNumber':
        this.numberEnds();
        return;
      case 'nullValue':
      case 'trueValue':
      case 'falseValue':
        this.literal(token.value);
        return;
      default:
        return;
    }
  }

  answer(): LogAnswer {
    if (this.code === undefined) throw new LogAnswerError('answer is not a ReturnT: no integer code');
    this.page ??= this.result?.cutPage();
    return { code: this.code, msg: this.msg ?? null, page: this.page ?? null };
  }

  /** The error for a body that ended before the answer did. */
  endedEarly(): LogAnswerError {
    return new LogAnswerError(
      this.inText ? 'the answer ended inside a string' : 'the answer ended in the middle of its JSON',
    );
  }

  /** The use of the value that starts now, from where it stands. */
  private slotHere(): Slot {
    if (this.depth === 1) {
      switch (this.member) {
        case 'code':
        case 'msg':
          return this.member;
        case 'content':
        case 'data':
          // Tickwheel answers carry the payload under both keys: the first one is read.
          return this.page === undefined && this.result === undefined ? 'payload' : 'skip';
      }
    } else if (this.depth === 2 && this.inPayload) {
      switch (this.field) {
        case 'fromLineNum':
        case 'toLineNum':
        case 'isEnd':
        case 'logContent':
          return this.field;
      }
    }
    return 'skip';
  }

  private containerStarts(isObject: boolean): void {
    if (this.depth === 0 && !isObject) throw new LogAnswerError('the answer is not a ReturnT: not an object');
    const slot = this.slotHere();
    if (slot === 'payload' && isObject) {
      this.result = new LogResultReader(this.fromLineNum, this.limits);
      this.inPayload = true;
    } else {
      this.refuseOther(slot, isObject ? 'an object' : 'an array');
    }
    if (++this.depth > MAX_DEPTH) throw new LogAnswerError('the answer nests too deep');
  }

  private containerEnds(): void {
    this.depth--;
    if (this.depth === 1 && this.inPayload) {
      this.inPayload = false;
      this.page = (this.result as LogResultReader).page();
    }
    this.valueEnds();
  }

  private keyEnds(): void {
    this.inText = false;
    const key = this.text?.value() ?? '';
    this.text = null;
    if (this.depth === 1) this.member = key;
    else if (this.depth === 2 && this.inPayload) this.field = key;
  }

  private stringStarts(): void {
    this.slot = this.slotHere();
    if (this.slot === 'msg') this.text = new CappedText(MSG_CHARS);
    else if (this.slot !== 'logContent') this.refuseOther(this.slot, 'a string');
  }

  private stringEnds(): void {
    if (this.slot === 'msg') this.msg = (this.text as CappedText).value();
    if (this.slot === 'logContent') (this.result as LogResultReader).lines.end();
    this.text = null;
    this.slot = 'skip';
    this.valueEnds();
  }

  private addLogContent(piece: string): void {
    const lines = (this.result as LogResultReader).lines;
    lines.add(piece);
    if (lines.cut && this.code !== undefined) this.stopped = true;
  }

  private numberStarts(): void {
    this.slot = this.slotHere();
    if (this.slot === 'code' || this.slot === 'fromLineNum' || this.slot === 'toLineNum') {
      this.text = new CappedText(NUMBER_CHARS);
    } else {
      this.refuseOther(this.slot, 'a number');
    }
  }

  private numberEnds(): void {
    if (this.text !== null) {
      const value = integer(this.slot, this.text);
      if (this.slot === 'code') this.code = value;
      else (this.result as LogResultReader).setLineNum(this.slot, value);
    }
    this.text = null;
    this.slot = 'skip';
    this.valueEnds();
  }

  private literal(value: boolean | null): void {
    const slot = this.slotHere();
    if (slot === 'isEnd') (this.result as LogResultReader).isEnd = value ?? false;
    else if (!(slot === 'logContent' && value === null)) this.refuseOther(slot, JSON.stringify(value));
    this.valueEnds();
  }

  /**
   * A value of a kind its slot does not take: a wrong `code` or LogResult field ends the reading,
   * a `msg` that is no string is no message, anything else is skipped.
   */
  private refuseOther(slot: Slot, what: string): void {
    switch (slot) {
      case 'code':
      case 'fromLineNum':
      case 'toLineNum':
        throw new LogAnswerError(`${slot}: expected an integer, got ${what}`);
      case 'isEnd':
        throw new LogAnswerError(`isEnd: expected a boolean, got ${what}`);
      case 'logContent':
        throw new LogAnswerError(`logContent: expected a string, got ${what}`);
      case 'msg':
        this.msg = null;
        return;
      default:
        return;
    }
  }

  /** After each member of the answer: a failure needs its message, a success its page. */
  private valueEnds(): void {
    if (this.depth === 0) {
      this.stopped = true;
      return;
    }
    if (this.depth !== 1 || this.code === undefined) return;
    this.stopped = this.code === 200 ? this.page !== undefined : this.msg !== undefined;
  }
}

function integer(slot: Slot, text: CappedText): number {
  const value = Number(text.value());
  if (!Number.isSafeInteger(value)) {
    throw new LogAnswerError(`${slot}: expected an integer, got ${JSON.stringify(text.value())}`);
  }
  return value;
}

/** The first `maxChars` characters of a text that arrives in pieces. */
class CappedText {
  private readonly pieces: string[] = [];
  private chars = 0;
  overflowed = false;

  constructor(private readonly maxChars: number) {}

  add(piece: string): void {
    const room = this.maxChars - this.chars;
    if (piece.length > room) this.overflowed = true;
    if (room <= 0) return;
    const kept = piece.length > room ? piece.slice(0, room) : piece;
    this.pieces.push(kept);
    this.chars += kept.length;
  }

  value(): string {
    return this.pieces.join('');
  }
}

/** The fields of the LogResult being read, and its `logContent` cut into a page. */
class LogResultReader {
  private from: number | undefined;
  private to: number | undefined;
  isEnd: boolean | undefined;
  readonly lines: PageLines;

  constructor(
    private readonly requestedFrom: number,
    limits: LogPageLimits,
  ) {
    this.lines = new PageLines(limits);
  }

  setLineNum(field: Slot, value: number): void {
    if (field === 'fromLineNum') this.from = value;
    else this.to = value;
  }

  /** The page once the whole LogResult has been read. */
  page(): LogPage {
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
