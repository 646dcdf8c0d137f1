import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/test/**/*.test.ts', 'tools/*.test.ts'],
    // Executor tests spawn worker threads and process groups: keep each file in its own process.
    pool: 'forks',
    // Two files at a time even on two cores (Vitest's default there is one): most of a file's time
    // is waiting — for timers, executors, databases, a browser — so the second one runs in its
    // gaps (the whole suite in about a third of the time on this machine); the tests are written
    // to pass on a loaded machine. More on larger machines, as Vitest's default gives.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // A test's own waits are bounded (the console's at 30 s each), so this only ends a test that
    // would fail anyway; long enough for a few such waits on a loaded machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll's own default (1 s) is a single look or two at a console beside another file's
    // load: a start confirmed by the server in 48 ms was still drawing after 1.4 s once.
    expect: { poll: { timeout: 10_000 } },
    reporters: ['default', './tools/summary-reporter.ts'],
  },
});
