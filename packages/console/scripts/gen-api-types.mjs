/**
 * Writes src/api/schema.d.ts, the REST API's types for the console, from the server's OpenAPI
 * document (`npm run gen:api -w @tickwheel/console` after changing the API; a test checks the
 * committed file is current).
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { apiTypesSource } from './api-types.mjs';

const target = fileURLToPath(new URL('../src/api/schema.d.ts', import.meta.url));
await writeFile(target, await apiTypesSource());
console.log(`wrote ${target}`);
