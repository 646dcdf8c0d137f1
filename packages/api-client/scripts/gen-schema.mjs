/**
 * Writes src/schema.ts, the REST API's types, from the server's OpenAPI document
 * (`npm run gen:api -w @tickwheel/api-client` after changing the API, then build; a test checks the
 * committed file is current). A types-only `.ts` rather than a `.d.ts`: tsc emits its declarations
 * into dist/ with the rest, where a `.d.ts` in src would be left behind.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { schemaSource } from './schema-source.mjs';

const target = fileURLToPath(new URL('../src/schema.ts', import.meta.url));
await writeFile(target, await schemaSource());
console.log(`wrote ${target}`);
