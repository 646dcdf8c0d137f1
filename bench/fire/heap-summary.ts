/**
 * Where a process allocated: sums the samples of one or more V8 `.heapprofile` files (as written
 * by `TW_BENCH_HEAP_PROFILE=<folder>`, bench/fire/server-process.ts) into bytes per allocating
 * function, largest first, with each one's share of the whole.
 *
 *   node bench/dist/fire/heap-summary.js [--top 40] <profile.heapprofile>…
 *
 * A sampled allocation stands for the 32 KiB allocated around it; the sums are the sampler's
 * estimate of the bytes each function allocated over the profile. With
 * `TW_BENCH_HEAP_PROFILE_PROMOTED=1` the profile holds only what outlived the minor collections:
 * the sums are then what each function left for the major ones.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '40' } },
});
const top = Number(values.top);
if (!Number.isInteger(top) || top <= 0) throw new Error(`--top: a positive integer, not ${values.top}`);
if (positionals.length === 0) {
  process.stderr.write('usage: heap-summary [--top 40] <profile.heapprofile>…\n');
  process.exit(2);
}

const bytes = new Map<string, number>();
let total = 0;
for (const file of positionals) {
  const stack: HeapNode[] = [(JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode }).head];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = `${functionName || '(anonymous)'} ${url.split('/').at(-1) ?? ''}:${lineNumber + 1}`;
    bytes.set(where, (bytes.get(where) ?? 0) + node.selfSize);
    total += node.selfSize;
    stack.push(...node.children);
  }
}

const mb = (n: number) => (n / 1e6).toFixed(1).padStart(9);
process.stdout.write(`${mb(total)} MB sampled in ${positionals.length} profile(s)\n`);
for (const [where, size] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  process.stdout.write(`${mb(size)} MB ${((100 * size) / total).toFixed(1).padStart(5)} %  ${where}\n`);
}
