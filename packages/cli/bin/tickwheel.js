#!/usr/bin/env node
// A plain JS entry so the workspace bin link exists before the first build.
import { main } from '../dist/main.js';

main(process.argv).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
