/**
 * The OpenAPI document a server describes its REST API with (`/api/v1/openapi.json`), read at run
 * time: what that server offers, which may be more than the generated types know (a newer server).
 */
import type { Client } from 'openapi-fetch';
import { type ApiClient, call } from './client.js';

/** Enough of an OpenAPI 3 document to find an operation and its request body. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, { operationId?: string; requestBody?: unknown }>>;
  [key: string]: unknown;
}

/** The document's own path, which it does not list among the API's: the generated `paths` lack it. */
interface OpenApiDocumentPath {
  '/api/v1/openapi.json': {
    get: {
      parameters: { query?: never; header?: never; path?: never; cookie?: never };
      responses: { 200: { content: { 'application/json': OpenApiDocument } } };
    };
  };
}

/**
 * The server's OpenAPI document, read through `client` like any call (its token, its errors).
 *
 * @example
 * const doc = await readOpenApiDocument(api);
 * const canImportWorkflows = Object.values(doc.paths).some((ops) => ops.post?.operationId === 'createWorkflow');
 */
export function readOpenApiDocument(client: ApiClient): Promise<OpenApiDocument> {
  return call((client as unknown as Client<OpenApiDocumentPath>).GET('/api/v1/openapi.json'));
}
