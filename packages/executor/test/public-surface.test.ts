/**
 * The package's public surface is a decision, not a side effect: its runtime exports are the list
 * below, and the same list is in README.md's "Public surface" section. Exporting something more
 * (or less) fails here until both the list and the README say so. The package is imported by its
 * name, so this checks the built `dist` a user gets (`npm run build` first).
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const SURFACE = [
  'JOB_LOG_LAYOUTS',
  'TickwheelError',
  'callPathUnder',
  'createExecutor',
  'isTickwheelError',
  'normalizeMountPrefix',
  'readTokenFile',
];

/** The names in the first `text` block of the README's "Public surface" section. */
async function listedInReadme(): Promise<string[]> {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.split(/^## /m).find((part) => part.startsWith('Public surface\n'));
  const block = /```text\n([^`]*)```/.exec(section ?? '')?.[1];
  return block?.split(/\s+/).filter((name) => name !== '') ?? [];
}

describe('the public surface of @tickwheel/executor', () => {
  it('exports at runtime exactly the listed names', async () => {
    const executor = await import('@tickwheel/executor');
    expect(Object.keys(executor).sort()).toEqual(SURFACE);
  });

  it('is listed, the same, in the README', async () => {
    expect(await listedInReadme()).toEqual(SURFACE);
  });
});
