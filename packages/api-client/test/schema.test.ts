import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { schemaSource } from '../scripts/schema-source.mjs';

describe('api-client: the API types', () => {
  it('src/schema.ts is generated from the current OpenAPI document (run npm run gen:api -w @tickwheel/api-client)', async () => {
    const committed = await readFile(new URL('../src/schema.ts', import.meta.url), 'utf8');
    expect(committed).toBe(await schemaSource());
  }, 30_000);
});
