#!/usr/bin/env node
/**
 * `npm start`'s build: builds only what is missing or older than its sources, quietly.
 *
 * - the TypeScript packages with `tsc -b`, which is incremental already (a second run with
 *   nothing changed checks timestamps and stops);
 * - the web console with Vite (the slow part, ~25 s), only when `packages/console/dist` is
 *   missing or older than any of its inputs (packages/console/scripts/build-staleness.mjs:
 *   `src/`, the API client's `src/`, `index.html`, `vite.config.ts`, `tsconfig.json`, its
 *   `package.json` and the root `package-lock.json`).
 *
 * Prints one line per part built and how long it took; a build that fails prints its whole
 * output and the script exits with its code. `npm run build` still builds everything.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CONSOLE_BUILD_INPUTS,
  CONSOLE_BUILD_OUTPUT,
  staleReason,
} from '../packages/console/scripts/build-staleness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

buildTypeScript();
buildConsoleIfStale();

function buildTypeScript() {
  const started = Date.now();
  // --verbose names each project it builds ("Building project ..."), so the line below can say
  // whether anything was out of date; the output is shown only when the build fails.
  const result = run(process.execPath, [resolvePath('typescript/bin/tsc'), '-b', '--verbose']);
  const built = (result.stdout.match(/Building project '/g) ?? []).length;
  if (built > 0) console.log(`built ${built} TypeScript project(s) in ${seconds(started)}`);
}

function buildConsoleIfStale() {
  const reason = staleReason(CONSOLE_BUILD_OUTPUT, CONSOLE_BUILD_INPUTS);
  if (reason === undefined) return;
  const started = Date.now();
  run(npmCommand(), ['run', 'build', '--silent', '-w', '@tickwheel/console']);
  console.log(`built the web console (${reason}) in ${seconds(started)}`);
}

/** Runs a build step with its output captured; on failure prints all of it and exits with its code. */
function run(command, args) {
  const result = spawnSync(command, args, {
    cwd: root,
    encoding: 'utf8',
    // npm on Windows is npm.cmd, which needs a shell.
    shell: process.platform === 'win32',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error !== undefined || result.status !== 0) {
    process.stdout.write(result.stdout ?? '');
    process.stderr.write(result.stderr ?? '');
    console.error(
      `build failed: ${[command, ...args].join(' ')}${result.error ? ` (${result.error.message})` : ''}`,
    );
    process.exit(result.status || 1);
  }
  return result;
}

function resolvePath(specifier) {
  return fileURLToPath(import.meta.resolve(specifier));
}

function npmCommand() {
  return process.platform === 'win32' ? 'npm.cmd' : 'npm';
}

function seconds(startedAt) {
  return `${((Date.now() - startedAt) / 1000).toFixed(1)} s`;
}
