import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONSOLE_BUILD_INPUTS, staleReason } from '../scripts/build-staleness.mjs';

let dir: string;
let output: string;
let inputs: string[];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-console-staleness-'));
  output = path.join(dir, 'dist', 'index.html');
  inputs = [path.join(dir, 'src'), path.join(dir, 'vite.config.ts'), path.join(dir, 'package-lock.json')];
  await mkdir(path.join(dir, 'src', 'pages'), { recursive: true });
  await writeFile(path.join(dir, 'src', 'pages', 'Jobs.tsx'), 'export {};');
  await writeFile(path.join(dir, 'vite.config.ts'), 'export default {};');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Sets a file's modification time to `secondsAgo` before now. */
async function age(file: string, secondsAgo: number): Promise<void> {
  const at = new Date(Date.now() - secondsAgo * 1000);
  await utimes(file, at, at);
}

async function build(secondsAgo: number): Promise<void> {
  await mkdir(path.dirname(output), { recursive: true });
  await writeFile(output, '<!doctype html>');
  await age(output, secondsAgo);
}

describe('console: whether npm start builds it again', () => {
  it('builds when there is no build yet', () => {
    expect(staleReason(output, inputs, dir)).toBe('not built yet');
  });

  it('skips the build when it is newer than every input (a missing input counts for nothing)', async () => {
    await age(path.join(dir, 'src', 'pages', 'Jobs.tsx'), 60);
    await age(path.join(dir, 'vite.config.ts'), 60);
    await build(10);
    expect(staleReason(output, inputs, dir)).toBeUndefined();
  });

  it('builds again when a source deep in src, the Vite config or the lockfile changed after it', async () => {
    await age(path.join(dir, 'src', 'pages', 'Jobs.tsx'), 60);
    await age(path.join(dir, 'vite.config.ts'), 60);
    await build(10);

    await writeFile(path.join(dir, 'src', 'pages', 'Jobs.tsx'), 'export const changed = 1;');
    expect(staleReason(output, inputs, dir)).toBe(path.join('src', 'pages', 'Jobs.tsx') + ' changed');

    await age(path.join(dir, 'src', 'pages', 'Jobs.tsx'), 60);
    await build(10);
    await writeFile(path.join(dir, 'package-lock.json'), '{}');
    expect(staleReason(output, inputs, dir)).toBe('package-lock.json changed');
  });

  it("watches the console's sources, the API client's, the page, configs and the root lockfile", () => {
    const names = CONSOLE_BUILD_INPUTS.map((input) =>
      path.relative(path.join(import.meta.dirname, '..', '..', '..'), input),
    );
    expect(names).toEqual([
      path.join('packages', 'console', 'src'),
      path.join('packages', 'api-client', 'src'),
      path.join('packages', 'console', 'index.html'),
      path.join('packages', 'console', 'vite.config.ts'),
      path.join('packages', 'console', 'tsconfig.json'),
      path.join('packages', 'console', 'package.json'),
      'package-lock.json',
    ]);
  });
});
