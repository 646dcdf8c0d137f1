import openapiTS, { astToString } from 'openapi-typescript';
import { readApiDocument } from './api-document.mjs';

const HEADER = "// Generated from the server's OpenAPI document by scripts/gen-schema.mjs: do not edit.\n";

/** The TypeScript source of src/schema.ts (the API's `paths` and `operations`), as gen-schema writes it. */
export async function schemaSource() {
  const ast = await openapiTS(await readApiDocument());
  return HEADER + astToString(ast);
}
