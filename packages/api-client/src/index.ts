/**
 * @tickwheel/api-client: a typed client of Tickwheel's REST API (`/api/v1`), generated from the
 * server's OpenAPI document, shared by the CLI and the console.
 */
export type { Middleware } from 'openapi-fetch';
export { ApiError, type ApiErrorOptions, SERVER_CALL_FAILED } from './api-error.js';
export { type ApiClient, type ApiClientOptions, call, createApiClient } from './client.js';
export { type OpenApiDocument, readOpenApiDocument } from './openapi-document.js';
export type { Body, Ok, OperationId, Query } from './operation-types.js';
export type { components, operations, paths } from './schema.js';
