import openapiTS, { astToString } from 'openapi-typescript';
import { readApiDocument } from './api-document.mjs';

const HEADER = "// Generated from the server's OpenAPI document by scripts/gen-api-types.mjs: do not edit.\n";

/** The TypeScript source of the API's types, as gen-api-types writes it. */
export async function apiTypesSource() {
  const ast = await openapiTS(await readApiDocument());
  return HEADER + astToString(ast);
}
