/**
 * bench/protocol — what reading a wire message costs: the protocol package's parsers (TypeBox's
 * compiled check, then the defaults filled) against the hand-written fast paths the executor and
 * the server had for the usual shapes (`fast-paths.ts`), on already-decoded JSON bodies:
 *
 * - a `run` body as a Tickwheel or XXL-JOB server sends it (every field present);
 * - the same with the `workflow` extension of a workflow node's fire (two upstream nodes);
 * - a callback list of 1 and of 100 results (G2 array; `handleCode`, `handleMsg`, `logDateTim`),
 *   read item by item as the server does (`parseCallbackBody([item])`, so that one bad item is
 *   skipped and not the batch).
 *
 *   npm run bench:protocol -- [--rounds 15] [--sample-ms 40] [--json]
 *
 * Each round times every case's two arms one after the other (the order swapped every round), for
 * `--sample-ms` each, after a warm-up; a sample's figure is ns per parse (per item for the
 * callback lists). The lowest and the median of the rounds are shown, with the load average
 * (`os.loadavg()`, 1 minute) at the start and the end of the measurement.
 */
import os from 'node:os';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { type HandleCallbackParam, parseCallbackBody, parseTriggerParam } from '@tickwheel/protocol';
import { readTriggerParam, usualCallbackParam } from './fast-paths.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '15' },
    'sample-ms': { type: 'string', default: '40' },
    json: { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds);
const sampleMs = Number(values['sample-ms']);
for (const [name, value] of Object.entries({ rounds, 'sample-ms': sampleMs })) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name}: must be an integer >= 1`);
}

const run = {
  jobId: 17,
  executorHandler: 'demoJobHandler',
  executorParams: 'day=2026-11-27',
  executorBlockStrategy: 'SERIAL_EXECUTION',
  executorTimeout: 0,
  logId: 123_456_789,
  logDateTime: 1_795_780_800_000,
  glueType: 'BEAN',
  glueSource: '',
  glueUpdatetime: 1_795_700_000_000,
  broadcastIndex: 0,
  broadcastTotal: 1,
};
const workflowRun = {
  ...run,
  workflow: {
    runId: 41,
    nodeKey: 'load',
    param: 'day=2026-11-27',
    upstream: {
      extract: { status: 'succeeded', output: { rows: 3 } },
      check: { status: 'succeeded', output: null },
    },
  },
};
const result = (i: number) => ({
  logId: 123_456_789 + i,
  logDateTim: 1_795_780_800_000,
  handleCode: 200,
  handleMsg: i % 2 === 0 ? null : 'done',
});
const oneResult = [result(0)];
const hundredResults = Array.from({ length: 100 }, (_, i) => result(i));

/** The server's reading of a callback body, with and without its fast path. */
function callbackFast(items: unknown[]): HandleCallbackParam[] {
  return items.map((item) => usualCallbackParam(item) ?? parseCallbackBody([item])[0]!);
}
function callbackParser(items: unknown[]): HandleCallbackParam[] {
  return items.map((item) => parseCallbackBody([item])[0]!);
}

interface Case {
  name: string;
  /** Parses per call (the items of a callback list). */
  per: number;
  fast: () => unknown;
  parser: () => unknown;
}
const cases: Case[] = [
  {
    name: 'run (TriggerParam)',
    per: 1,
    fast: () => readTriggerParam(run),
    parser: () => parseTriggerParam(run),
  },
  {
    name: 'run with workflow',
    per: 1,
    fast: () => readTriggerParam(workflowRun),
    parser: () => parseTriggerParam(workflowRun),
  },
  {
    name: 'callback, 1 item',
    per: 1,
    fast: () => callbackFast(oneResult),
    parser: () => callbackParser(oneResult),
  },
  {
    name: 'callback, 100 items',
    per: 100,
    fast: () => callbackFast(hundredResults),
    parser: () => callbackParser(hundredResults),
  },
];

// Both arms must read the same thing, or the comparison means nothing.
for (const c of cases) {
  if (!isDeepStrictEqual(c.fast(), c.parser())) throw new Error(`${c.name}: the two arms disagree`);
}

let sink = 0;
/** ns per parse over one sample of `sampleMs`. */
function sample(fn: () => unknown, per: number): number {
  const budget = BigInt(sampleMs) * 1_000_000n;
  const start = process.hrtime.bigint();
  let calls = 0;
  let elapsed = 0n;
  do {
    for (let i = 0; i < 100; i++) if (fn() !== undefined) sink++;
    calls += 100;
    elapsed = process.hrtime.bigint() - start;
  } while (elapsed < budget);
  return Number(elapsed) / (calls * per);
}

for (const c of cases) {
  sample(c.fast, c.per);
  sample(c.parser, c.per);
}
const loadBefore = os.loadavg()[0]!;
const figures = cases.map(() => ({ fast: [] as number[], parser: [] as number[] }));
for (let round = 0; round < rounds; round++) {
  cases.forEach((c, i) => {
    const order = round % 2 === 0 ? (['fast', 'parser'] as const) : (['parser', 'fast'] as const);
    for (const arm of order) figures[i]![arm].push(sample(c[arm], c.per));
  });
}
const loadAfter = os.loadavg()[0]!;

const min = (xs: number[]) => Math.min(...xs);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const rows = cases.map((c, i) => {
  const f = figures[i]!;
  return {
    case: c.name,
    fastMin: min(f.fast),
    fastMedian: median(f.fast),
    parserMin: min(f.parser),
    parserMedian: median(f.parser),
    extraMedian: median(f.parser) - median(f.fast),
  };
});
if (values.json) {
  console.log(
    JSON.stringify({ rounds, sampleMs, loadBefore, loadAfter, node: process.version, rows, figures }),
  );
} else {
  const ns = (x: number) => x.toFixed(0).padStart(8);
  console.log(
    `${rounds} rounds of ${sampleMs} ms per arm, Node ${process.version}, load average ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}`,
  );
  console.log(
    'ns per parse (per item for callbacks)   fast min   median  parser min   median  parser − fast',
  );
  for (const r of rows) {
    console.log(
      `${r.case.padEnd(38)}${ns(r.fastMin)} ${ns(r.fastMedian)}    ${ns(r.parserMin)} ${ns(r.parserMedian)}  ${ns(r.extraMedian)}`,
    );
  }
}
if (sink === 0) console.log('');
