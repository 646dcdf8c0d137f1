/**
 * What the REST commands print: borderless aligned tables for people (cli-table3), the server's
 * JSON as it came for scripts (`--json`), one line per message.
 */
import Table from 'cli-table3';

type Cell = string | number | null | undefined;

/** No borders, two spaces between columns, no colours: reads well in a terminal and in a log. */
const PLAIN_CHARS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
};

/** Prints rows under a header; an empty list prints `(none)` so the output is never blank. */
export function printTable(head: string[], rows: Cell[][]): void {
  if (rows.length === 0) {
    console.log('(none)');
    return;
  }
  const table = new Table({
    head,
    chars: PLAIN_CHARS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  for (const row of rows) table.push(row.map((cell) => cell ?? '-'));
  console.log(trimLines(table.toString()));
}

/** Prints one resource as `field  value` lines. */
export function printRecord(fields: Array<[string, Cell]>): void {
  const table = new Table({
    chars: PLAIN_CHARS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  for (const [name, value] of fields) table.push([name, value ?? '-']);
  console.log(trimLines(table.toString()));
}

/** Prints a paging footer when the list is one page of more. */
export function printPageFooter(page: { items: unknown[]; total: number; offset: number }): void {
  if (page.total > page.items.length) {
    const first = page.items.length === 0 ? page.offset : page.offset + 1;
    console.log(
      `(${first}-${page.offset + page.items.length} of ${page.total}; use --offset and --limit for more)`,
    );
  }
}

export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

/** Epoch milliseconds as local `YYYY-MM-DD HH:mm:ss`; null as `-`. */
export function formatTime(epochMs: number | null | undefined): string {
  if (epochMs === null || epochMs === undefined) return '-';
  const d = new Date(epochMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  );
}

/** Cuts a long cell (a message, a handler) to `max` characters. */
export function clip(text: string | null | undefined, max = 60): string {
  if (text === null || text === undefined || text === '') return '-';
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

function trimLines(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}
