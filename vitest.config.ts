import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/test/**/*.test.ts', 'tools/*.test.ts'],
    // Executor tests spawn worker threads and process groups: keep each file in its own process.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', './tools/summary-reporter.ts'],
  },
});
