/**
 * The alarm as the markdown DingTalk and WeCom robots read. Everything in it but the labels is
 * someone else's text — a job's or an app's name, an executor's address, a run's message — and
 * is escaped for the robot's dialect, so a job named `[x](http://evil) ![i](http://evil/i.png)`
 * shows as written, not as a link and an image in the on-call group.
 *
 * Both dialects are CommonMark's inline syntax (links, images, emphasis, code) and block starts
 * (headings, quotes, lists), plus a few HTML-like tags: DingTalk's `<font>`, WeCom's `<font>`
 * and `<@userid>` mentions. So each character that opens one is written as CommonMark reads it
 * literally: a backslash before the punctuation, `&lt;` `&gt;` `&amp;` for what a tag is made of
 * (a backslash does not stop a tag). Even a renderer that took the backslashes as text could make
 * no link or image of the result: every `](` and `![` has a backslash between its characters.
 * Parentheses and `!` mean nothing away from brackets, so they are left as they are there.
 */
import type { AlarmMessage } from './alarm-message.js';

export interface MarkdownDialect {
  /** The punctuation the dialect reads as syntax anywhere in a line. */
  inline: RegExp;
}

/** DingTalk's markdown: CommonMark with images, lists and emphasis by `*` or `_`, and `<font>`. */
export const DINGTALK_MARKDOWN: MarkdownDialect = { inline: /[\\`*_[\]~|]/g };

/**
 * WeCom's markdown (the `markdown` message type): headings, bold, links, inline code and quotes,
 * `<font color>` and `<@userid>`; no tables (no `|` to escape), and images only in `markdown_v2`,
 * whose `![` the escaped `[` breaks as well.
 */
export const WECOM_MARKDOWN: MarkdownDialect = { inline: /[\\`*_[\]~]/g };

/** A heading's, a list item's or a setext underline's start: syntax only at the start of a line. */
const LINE_START = /^( *)([-+=#]|\d+[.)])/;

/**
 * `text` as the dialect shows it literally within a line.
 *
 * @example
 * escapeMarkdown('[x](http://evil)', DINGTALK_MARKDOWN); // '\\[x\\]\\(http://evil\\)'
 */
export function escapeMarkdown(text: string, dialect: MarkdownDialect): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(dialect.inline, '\\$&')
    .replace(/\\\]\(/g, '\\]\\(');
}

/** Lines of `text`, each escaped, its start too (a `#`, `-` or `1.` there would start a block). */
function escapeLines(text: string, dialect: MarkdownDialect): string[] {
  return text
    .split('\n')
    .map((line) =>
      escapeMarkdown(line, dialect).replace(
        LINE_START,
        (_all, indent: string, marker: string) => `${indent}${escapeMarker(marker)}`,
      ),
    );
}

/**
 * The alarm in the dialect: the title as a heading, the facts in bold labels one a line, then the
 * run's messages quoted. Only the labels are markdown of ours; every value is escaped.
 */
export function renderMarkdown(message: AlarmMessage, dialect: MarkdownDialect): string {
  const esc = (text: string) => escapeMarkdown(text, dialect);
  const lines = [
    `### ${esc(oneLine(message.title))}`,
    '',
    ...message.facts.map(([label, value]) => `**${label}**: ${esc(oneLine(value))}  `),
  ];
  if (message.details !== '') {
    lines.push('', ...escapeLines(message.details, dialect).map((line) => `> ${line}`));
  }
  return lines.join('\n');
}

/** `-` → `\-`, `1.` → `1\.`: a marker that then starts no list. */
function escapeMarker(marker: string): string {
  return `${marker.slice(0, -1)}\\${marker.slice(-1)}`;
}

/** A line break inside a fact would start a new block (a heading, a link definition): a space instead. */
function oneLine(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, ' ');
}
