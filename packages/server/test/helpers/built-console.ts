/**
 * The built console the server serves in the suites that need its pages (security/*): the
 * workspace's `packages/console/dist`, or `TW_CONSOLE_DIR` (a console built elsewhere, as the
 * console's own browser tests allow, so a build emptying dist/ does not pull it from under a run).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BUILT_CONSOLE_DIR =
  process.env.TW_CONSOLE_DIR ?? fileURLToPath(new URL('../../../console/dist/', import.meta.url));

/** The built console's `index.html`, as the server sends it. */
export function builtConsolePage(): string {
  return readFileSync(path.join(BUILT_CONSOLE_DIR, 'index.html'), 'utf8');
}
