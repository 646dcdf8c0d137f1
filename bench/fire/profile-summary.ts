/**
 * Where a process spent its CPU: sums the samples of one or more V8 `.cpuprofile` files (as
 * written by `node --cpu-prof`, e.g. by `TW_BENCH_PROFILE=<folder> npm run bench:fire`) into
 * self time per function, self time per module and inclusive time per source file, in percent of
 * the sampled time.
 *
 *   node bench/dist/fire/profile-summary.js [--top 40] [--files 30] [--callers <name> [--depth 4]] <profile.cpuprofile>…
 *
 * Several files are summed (the two executors of one case, say). "Self" is the time a function
 * was on top of the stack; "inclusive" the time a file had any frame on the stack (counted once
 * per sample however deep it recurses). Idle time (`(idle)`) is listed but also left out of a
 * second percentage, so the busy share of each entry can be read directly. `--callers <name>`
 * adds the stacks (`--depth` frames, default 4) that lead to the functions whose name or file
 * contains `<name>`, by inclusive time: where a cost comes from.
 *
 * Caveat: V8's sampler takes wall time on the thread. In a process waiting for a core (a loaded
 * machine), a system call that wakes another process or thread — a socket write to an executor,
 * a message to a worker — is charged with that wait too, so such frames read higher than their
 * CPU. `perf record -e cpu-clock` over the children, started with `--perf-basic-prof`, samples CPU
 * time only.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '40' },
    files: { type: 'string', default: '30' },
    callers: { type: 'string' },
    depth: { type: 'string', default: '4' },
  },
});

const top = positiveInteger(values.top, '--top');
const topFiles = positiveInteger(values.files, '--files');
const depth = positiveInteger(values.depth, '--depth');
if (positionals.length === 0) {
  process.stderr.write(
    'usage: profile-summary [--top 40] [--files 30] [--callers <name> [--depth 4]] <profile.cpuprofile>…\n',
  );
  process.exit(2);
}

const selfByFunction = new Map<string, number>();
const selfByModule = new Map<string, number>();
const inclusiveByFile = new Map<string, number>();
const callerStacks = new Map<string, number>();
let totalUs = 0;
let idleUs = 0;

for (const file of positionals) addProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);

const busyUs = totalUs - idleUs;
console.log(
  `${positionals.length} profile(s), ${(totalUs / 1e6).toFixed(2)} s sampled, ` +
    `${(busyUs / 1e6).toFixed(2)} s busy (${percent(busyUs, totalUs)} %)\n`,
);
printTable(`Top ${top} functions by self time`, selfByFunction, top);
printTable('Self time by module', selfByModule, topFiles);
printTable(`Top ${topFiles} source files by inclusive time`, inclusiveByFile, topFiles);
if (values.callers !== undefined) printTable(`Callers of '${values.callers}'`, callerStacks, top);

function addProfile(profile: CpuProfile): void {
  const byId = new Map<number, ProfileNode>();
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parentOf.set(child, node.id);
  }
  // Each sample's time is the delta to the next sample (the last one has none: it is dropped).
  const { samples, timeDeltas } = profile;
  for (let i = 0; i < samples.length - 1; i++) {
    const node = byId.get(samples[i] as number);
    const us = timeDeltas[i + 1] ?? 0;
    if (node === undefined || us <= 0) continue;
    totalUs += us;
    const frame = node.callFrame;
    if (frame.functionName === '(idle)') idleUs += us;
    add(selfByFunction, functionKey(frame), us);
    add(selfByModule, moduleOf(frame), us);
    if (values.callers !== undefined) addCallers(node.id, byId, parentOf, values.callers, us);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parentOf.get(id)) {
      const key = fileOf((byId.get(id) as ProfileNode).callFrame);
      if (key === undefined || seen.has(key)) continue;
      seen.add(key);
      add(inclusiveByFile, key, us);
    }
  }
}

/** Adds the sample to the stack above the innermost frame matching `name`, if any. */
function addCallers(
  leaf: number,
  byId: Map<number, ProfileNode>,
  parentOf: Map<number, number>,
  name: string,
  us: number,
): void {
  for (let id: number | undefined = leaf; id !== undefined; id = parentOf.get(id)) {
    const frame = (byId.get(id) as ProfileNode).callFrame;
    if (!functionKey(frame).includes(name)) continue;
    const stack: string[] = [];
    for (let up: number | undefined = id; up !== undefined && stack.length < depth; up = parentOf.get(up)) {
      stack.push(functionKey((byId.get(up) as ProfileNode).callFrame));
    }
    add(callerStacks, stack.join(' ← '), us);
    return;
  }
}

function add(map: Map<string, number>, key: string, us: number): void {
  map.set(key, (map.get(key) ?? 0) + us);
}

function functionKey(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)';
  const file = fileOf(frame);
  return file === undefined ? name : `${name} ${file}:${frame.lineNumber + 1}`;
}

/** A short name for a frame's source: `pkg:<name>` for dependencies, the path from the repository root for ours. */
function fileOf(frame: CallFrame): string | undefined {
  const url = frame.url;
  if (url === '') return undefined;
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(url);
  if (dependency !== null && !/node_modules\/@tickwheel\//.test(url))
    return `pkg:${dependency[1]}/${dependency[2]}`;
  const ours = /\/((?:packages|bench)\/.*)$/.exec(url);
  if (ours !== null) return ours[1];
  return url.replace(/^file:\/\//, '');
}

/** Coarser than a file: a dependency by package, a Node built-in as `node:`, ours by file. */
function moduleOf(frame: CallFrame): string {
  if (frame.url === '') return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  const file = fileOf(frame) as string;
  const dependency = /^pkg:((?:@[^/]+\/)?[^/]+)\//.exec(file);
  if (dependency !== null) return `pkg:${dependency[1]}`;
  if (file.startsWith('node:')) return `node:${file.slice(5).split('/')[0]}`;
  return file;
}

function printTable(title: string, map: Map<string, number>, count: number): void {
  console.log(`${title} (ms, % of sampled, % of busy):`);
  const rows = [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, count);
  for (const [key, us] of rows) {
    const busyShare = key.startsWith('(idle)') ? '' : `${percent(us, busyUs).padStart(6)} %`;
    console.log(
      `${(us / 1000).toFixed(0).padStart(8)}  ${percent(us, totalUs).padStart(6)} %  ${busyShare.padEnd(8)}  ${key}`,
    );
  }
  console.log('');
}

function percent(part: number, whole: number): string {
  return whole > 0 ? ((part / whole) * 100).toFixed(1) : '0.0';
}

function positiveInteger(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${flag}: must be an integer >= 1, got '${text}'`);
  return value;
}
