/**
 * A child's answer to `usage`: its CPU time (all threads, and its main thread's), what its main
 * thread's heap has allocated and collected, its RSS, and its event-loop delay since the previous
 * answer. The delay is sampled by Node's own histogram (`monitorEventLoopDelay`), which costs a
 * timer every 10 ms, the same in every process measured.
 */
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { GCProfiler } from 'node:v8';
import type { Usage } from './messages.js';

const NS_PER_MS = 1e6;
/** /proc counts a thread's CPU in clock ticks of 1/100 s (USER_HZ, fixed by the kernel's ABI). */
const US_PER_TICK = 10_000;

/**
 * CPU time of this process's main thread (user + system, µs), from Linux's
 * `/proc/self/task/<pid>/stat`; undefined where there is none. The rest of `process.cpuUsage()` is
 * the other threads': V8's garbage-collection helpers above all, libuv's pool, worker threads
 * (a SQLite hot thread, an executor's log-file thread).
 */
function mainThreadCpuUs(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // The fields after the command name, which is in parentheses and may hold blanks: state is
    // field 3, utime 14 and stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * US_PER_TICK;
  } catch {
    return undefined;
  }
}

/**
 * What the main thread's heap took in since the meter started, from V8's record of each
 * collection (`GCProfiler`): `allocatedBytes` adds up, collection by collection, the heap's used
 * size before it less its used size after the one before (what was allocated in between; the
 * bytes allocated since the last collection are counted at the next), and `gcPauseUs` the
 * collections' time on the thread. A worker thread's heap (a SQLite hot thread) is its own and
 * not counted.
 */
function createGcMeter(): () => { allocatedBytes: number; gcPauseUs: number } {
  let profiler = new GCProfiler();
  profiler.start();
  let allocatedBytes = 0;
  let gcPauseUs = 0;
  let usedAfterLast: number | undefined;
  return () => {
    const { statistics } = profiler.stop();
    profiler = new GCProfiler();
    profiler.start();
    for (const gc of statistics) {
      const usedBefore = gc.beforeGC.heapStatistics.usedHeapSize;
      if (usedAfterLast !== undefined) allocatedBytes += Math.max(0, usedBefore - usedAfterLast);
      usedAfterLast = gc.afterGC.heapStatistics.usedHeapSize;
      gcPauseUs += gc.cost;
    }
    return { allocatedBytes, gcPauseUs };
  };
}

export function createUsageReporter(): () => Usage {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const gc = createGcMeter();
  return () => {
    const usage: Usage = {
      type: 'usage',
      cpu: process.cpuUsage(),
      mainThreadCpuUs: mainThreadCpuUs(),
      ...gc(),
      rss: process.memoryUsage().rss,
      loopDelay: { p99Ms: loop.percentile(99) / NS_PER_MS, maxMs: loop.max / NS_PER_MS },
    };
    loop.reset();
    return usage;
  };
}
