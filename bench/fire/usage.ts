/**
 * A child's answer to `usage`: its CPU time, RSS and event-loop delay since the previous answer.
 * The delay is sampled by Node's own histogram (`monitorEventLoopDelay`), which costs a timer
 * every 10 ms, the same in every process measured.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Usage } from './messages.js';

const NS_PER_MS = 1e6;

export function createUsageReporter(): () => Usage {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  return () => {
    const usage: Usage = {
      type: 'usage',
      cpu: process.cpuUsage(),
      rss: process.memoryUsage().rss,
      loopDelay: { p99Ms: loop.percentile(99) / NS_PER_MS, maxMs: loop.max / NS_PER_MS },
    };
    loop.reset();
    return usage;
  };
}
