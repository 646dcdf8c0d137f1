#!/usr/bin/env node
// A plain JS entry so the workspace bin link exists before the first build. It checks the
// runtime before loading anything: on an unsupported Node the native SQLite driver would crash
// the process instead of saying why.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 19) || major === 23) {
  console.error(
    `tickwheel needs Node.js 22 (22.19 or later) or 24; this is Node.js ${process.versions.node}.`,
  );
  process.exit(1);
}
const { main } = await import('../dist/main.js');

main(process.argv).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
