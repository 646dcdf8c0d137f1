/**
 * Whether the console's build (`dist/`) is older than what it is built from: `npm start`
 * (tools/build-if-stale.mjs) runs the slow Vite build only then.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const consoleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(consoleDir, '..', '..');

/**
 * What the console's build reads, besides node_modules (whose changes the lockfile records): the
 * API client it bundles is a workspace package, so its sources count too.
 */
export const CONSOLE_BUILD_INPUTS = [
  path.join(consoleDir, 'src'),
  path.join(repoRoot, 'packages', 'api-client', 'src'),
  path.join(consoleDir, 'index.html'),
  path.join(consoleDir, 'vite.config.ts'),
  path.join(consoleDir, 'tsconfig.json'),
  path.join(consoleDir, 'package.json'),
  path.join(repoRoot, 'package-lock.json'),
];

/** The file whose presence and age stand for the build. */
export const CONSOLE_BUILD_OUTPUT = path.join(consoleDir, 'dist', 'index.html');

/**
 * Why `output` must be built again, or undefined when it is newer than every input: `not built
 * yet`, or `<input> changed` naming the first input found newer (relative to `base`).
 *
 * @example
 * const reason = staleReason(CONSOLE_BUILD_OUTPUT, CONSOLE_BUILD_INPUTS);
 * if (reason !== undefined) console.log(`building the console: ${reason}`);
 */
export function staleReason(output, inputs, base = repoRoot) {
  if (!existsSync(output)) return 'not built yet';
  const builtAt = statSync(output).mtimeMs;
  for (const input of inputs) {
    const changed = newestFile(input);
    if (changed !== undefined && changed.mtimeMs > builtAt)
      return `${path.relative(base, changed.file)} changed`;
  }
  return undefined;
}

/** The most recently modified file at `target` (a file, or a folder searched through). */
function newestFile(target) {
  if (!existsSync(target)) return undefined;
  const stat = statSync(target);
  if (!stat.isDirectory()) return { file: target, mtimeMs: stat.mtimeMs };
  let newest;
  for (const entry of readdirSync(target)) {
    const found = newestFile(path.join(target, entry));
    if (found !== undefined && (newest === undefined || found.mtimeMs > newest.mtimeMs)) newest = found;
  }
  return newest;
}
