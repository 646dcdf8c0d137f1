import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { apiTypesSource } from '../scripts/api-types.mjs';

describe('console: API types', () => {
  it('src/api/schema.d.ts is generated from the current OpenAPI document (run npm run gen:api -w @tickwheel/console)', async () => {
    const committed = await readFile(new URL('../src/api/schema.d.ts', import.meta.url), 'utf8');
    expect(committed).toBe(await apiTypesSource());
  }, 30_000);
});
