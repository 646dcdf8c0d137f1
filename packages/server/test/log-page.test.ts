import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CUT_LINE_MARK, LogAnswerError, type LogPageLimits, readLogPage } from '../src/dispatch/log-page.js';

/** The answer's bytes in chunks of `size` bytes (splitting characters and escapes anywhere). */
function chunked(text: string, size: number): Readable {
  const bytes = Buffer.from(text, 'utf8');
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return Readable.from(chunks);
}

function xxlAnswer(lines: string[], from = 1): string {
  const content = lines.slice(from - 1);
  return JSON.stringify({
    code: 200,
    content: {
      fromLineNum: from,
      toLineNum: from + content.length - 1,
      logContent: content.map((l) => `${l}\n`).join(''),
      isEnd: false,
    },
  });
}

const LIMITS: LogPageLimits = { maxLines: 3, maxBytes: 40 };

describe('a page of a log answer', () => {
  it('keeps the whole answer, with the executor line numbers, when it fits', async () => {
    const answer = await readLogPage(chunked(xxlAnswer(['one', 'two']), 5), 1, LIMITS);
    expect(answer).toEqual({
      code: 200,
      msg: null,
      page: { fromLineNum: 1, toLineNum: 2, logContent: 'one\ntwo\n', isEnd: false, more: false },
    });
  });

  it('cuts the answer after the line limit and says where the next page starts', async () => {
    const lines = ['a', 'b', 'c', 'd', 'e'];
    const answer = await readLogPage(chunked(xxlAnswer(lines, 2), 3), 2, LIMITS);
    expect(answer.page).toEqual({
      fromLineNum: 2,
      toLineNum: 4,
      logContent: 'b\nc\nd\n',
      isEnd: false,
      more: true,
    });
  });

  it('cuts the answer before the line that would pass the byte limit', async () => {
    const lines = ['x'.repeat(15), 'y'.repeat(15), 'z'.repeat(15)];
    const answer = await readLogPage(chunked(xxlAnswer(lines), 7), 1, LIMITS);
    expect(answer.page).toMatchObject({
      toLineNum: 2,
      logContent: `${'x'.repeat(15)}\n${'y'.repeat(15)}\n`,
      more: true,
    });
  });

  it('decodes escapes and characters split across chunks, and counts bytes of UTF-8', async () => {
    const lines = ['é"\\\t/ü', '日本語🙂', '\u0001'];
    for (const size of [1, 2, 3, 5]) {
      const answer = await readLogPage(chunked(xxlAnswer(lines), size), 1, { maxLines: 10, maxBytes: 1000 });
      expect(answer.page!.logContent).toBe(lines.map((l) => `${l}\n`).join(''));
    }
    // 日本語🙂 is 13 bytes of UTF-8 and 5 UTF-16 units: with 20 bytes the second line does not fit beside the first.
    const tight = await readLogPage(chunked(xxlAnswer(['日本語🙂', '日本語🙂']), 4), 1, {
      maxLines: 10,
      maxBytes: 20,
    });
    expect(tight.page).toMatchObject({ toLineNum: 1, logContent: '日本語🙂\n', more: true });
  });

  it('cuts a single line longer than a page to fit, marked, and moves on', async () => {
    const long = 'L'.repeat(100);
    const limits = { maxLines: 3, maxBytes: 64 };
    const answer = await readLogPage(chunked(xxlAnswer([long, 'next']), 9), 1, limits);
    expect(answer.page).toMatchObject({ fromLineNum: 1, toLineNum: 1, more: true });
    expect(answer.page!.logContent).toMatch(/^L+ … \[line cut: longer than one log page\]\n$/);
    expect(answer.page!.logContent.startsWith(`LLLL`)).toBe(true);
    expect(answer.page!.logContent.endsWith(`${CUT_LINE_MARK}\n`)).toBe(true);
    expect(Buffer.byteLength(answer.page!.logContent)).toBeLessThanOrEqual(limits.maxBytes);
    const next = await readLogPage(chunked(xxlAnswer([long, 'next'], 2), 9), 2, limits);
    expect(next.page).toMatchObject({ fromLineNum: 2, toLineNum: 2, logContent: 'next\n', more: false });
  });

  it('keeps the missing-file answer as the executor gave it (toLineNum 0, isEnd true)', async () => {
    const text =
      '{"code":200,"content":{"fromLineNum":1,"toLineNum":0,"logContent":"readLog fail, logFile not exists","isEnd":true}}';
    const answer = await readLogPage(chunked(text, 4), 1, LIMITS);
    expect(answer.page).toEqual({
      fromLineNum: 1,
      toLineNum: 0,
      logContent: 'readLog fail, logFile not exists',
      isEnd: true,
      more: false,
    });
  });

  it('reads a Tickwheel answer (msg, content and data) and stops after the first payload', async () => {
    const result = { fromLineNum: 1, toLineNum: 1, logContent: 'only\n', isEnd: false };
    const text = JSON.stringify({ code: 200, msg: 'Success', content: result, data: result });
    let pulled = 0;
    const chunks = (async function* () {
      const bytes = Buffer.from(text);
      for (let i = 0; i < bytes.length; i += 8) {
        pulled = i + 8;
        yield bytes.subarray(i, i + 8);
      }
    })();
    const answer = await readLogPage(chunks, 1, LIMITS);
    expect(answer).toMatchObject({ code: 200, msg: 'Success', page: { logContent: 'only\n', more: false } });
    expect(pulled).toBeLessThan(text.indexOf('"data"') + 8);
  });

  it('reads no further than the page once the code is known', async () => {
    const lines = Array.from({ length: 10_000 }, (_, i) => `line ${i + 1}`);
    const text = xxlAnswer(lines);
    let pulled = 0;
    const chunks = (async function* () {
      const bytes = Buffer.from(text);
      for (let i = 0; i < bytes.length; i += 64) {
        pulled = i + 64;
        yield bytes.subarray(i, i + 64);
      }
    })();
    const answer = await readLogPage(chunks, 1, LIMITS);
    expect(answer.page).toMatchObject({ toLineNum: 3, logContent: 'line 1\nline 2\nline 3\n', more: true });
    expect(pulled).toBeLessThanOrEqual(128);
  });

  it('still finds a code that comes after the payload, keeping only the page', async () => {
    const text = `{"content":{"fromLineNum":1,"toLineNum":5,"logContent":"a\\nb\\nc\\nd\\ne\\n","isEnd":false},"msg":null,"code":200}`;
    const answer = await readLogPage(chunked(text, 3), 1, LIMITS);
    expect(answer).toEqual({
      code: 200,
      msg: null,
      page: { fromLineNum: 1, toLineNum: 3, logContent: 'a\nb\nc\n', isEnd: false, more: true },
    });
  });

  it('skips members it does not use, whatever valid JSON they hold', async () => {
    const result = {
      fromLineNum: 1,
      toLineNum: 1,
      logContent: 'kept\n',
      isEnd: true,
      extra: [{ a: [null] }],
    };
    const text = `{"trace":[1,{"x":"y\\"z"},[[]],true],"big":${'9'.repeat(100)},"${'k'.repeat(300)}":-1.5e3,"code":200,"content":${JSON.stringify(result)}}`;
    for (const size of [1, 7, 64]) {
      const answer = await readLogPage(chunked(text, size), 1, LIMITS);
      expect(answer).toEqual({
        code: 200,
        msg: null,
        page: { fromLineNum: 1, toLineNum: 1, logContent: 'kept\n', isEnd: true, more: false },
      });
    }
  });

  it('gives a refusal its code and message', async () => {
    const answer = await readLogPage(
      chunked('{"code":500,"msg":"The access token is wrong."}', 4),
      1,
      LIMITS,
    );
    expect(answer).toEqual({ code: 500, msg: 'The access token is wrong.', page: null });
  });

  it('refuses what is not a ReturnT with a LogResult', async () => {
    await expect(readLogPage(chunked('<html>busy</html>', 4), 1, LIMITS)).rejects.toBeInstanceOf(
      LogAnswerError,
    );
    await expect(
      readLogPage(chunked('{"code":200,"content":{"logContent":"a\\n"}}', 4), 1, LIMITS),
    ).rejects.toThrow(/fromLineNum and toLineNum are required/);
    await expect(readLogPage(chunked('{"msg":"x"}', 4), 1, LIMITS)).rejects.toThrow(/no integer code/);
    await expect(
      readLogPage(chunked('{"code":200,"content":{"logContent":"a', 4), 1, LIMITS),
    ).rejects.toThrow(/ended inside a string/);
  });
});
