/**
 * The caller's own bearer tokens: `listApiTokens`, `createApiToken` (the token is shown once;
 * only its hash is stored), `revokeApiToken`. A token acts with its owner's role and app
 * permissions as they are at each request. Creating and revoking write their audit entry in the
 * same transaction.
 */
import type { FastifyInstance } from 'fastify';
import { generateApiToken, hashApiToken } from '../security/api-tokens.js';
import { type ApiTokenRow, inAccountTransaction } from '../store/index.js';
import { auditEntry } from './audit-trail.js';
import { type ApiContext, principalOf, SECURITY } from './context.js';
import { errorResponses, notFound } from './errors.js';
import {
  ApiTokenList,
  CreatedApiToken,
  IdParams,
  type NewApiTokenBody,
  NewApiTokenBody as NewApiTokenSchema,
} from './schemas.js';

const TAGS = ['tokens'];

export function registerTokens(api: FastifyInstance, ctx: ApiContext): void {
  const { store, clock } = ctx.deps;

  api.get(
    '/tokens',
    {
      schema: {
        operationId: 'listApiTokens',
        tags: TAGS,
        summary: "The caller's own bearer tokens (names and dates; a token itself is never shown again)",
        security: SECURITY,
        response: { 200: ApiTokenList, ...errorResponses() },
      },
    },
    async (request) => {
      const rows = await store.users.listApiTokens(principalOf(ctx, request).userId);
      return { items: rows.map(toApiToken) };
    },
  );

  api.post<{ Body: NewApiTokenBody }>(
    '/tokens',
    {
      schema: {
        operationId: 'createApiToken',
        tags: TAGS,
        summary: 'Create a bearer token acting as the caller; the answer is the only time it is shown',
        security: SECURITY,
        body: NewApiTokenSchema,
        response: { 201: CreatedApiToken, ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(ctx, request);
      const token = generateApiToken();
      const now = clock.now();
      const row = await inAccountTransaction(store, async (tx) => {
        const created = await tx.users.createApiToken(
          { name: request.body.name, tokenHash: hashApiToken(token), userId: principal.userId },
          now,
        );
        await tx.audit.recordAudit(
          auditEntry(principal, {
            action: 'CREATE',
            targetType: 'API_TOKEN',
            targetId: created.id,
            appId: null,
            detail: { name: created.name },
          }),
          now,
        );
        return created;
      });
      reply.code(201);
      return { id: row.id, name: row.name, token, createdAt: row.created_at };
    },
  );

  api.delete<{ Params: IdParams }>(
    '/tokens/:id',
    {
      schema: {
        operationId: 'revokeApiToken',
        tags: TAGS,
        summary: "Revoke one of the caller's own bearer tokens: it stops working at once",
        security: SECURITY,
        params: IdParams,
        response: { 204: { type: 'null', description: 'Revoked' }, ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(ctx, request);
      const id = request.params.id;
      const now = clock.now();
      await inAccountTransaction(store, async (tx) => {
        // Someone else's token is as unknown as a missing one: the answer tells nothing about it.
        const token = (await tx.users.listApiTokens(principal.userId)).find((row) => row.id === id);
        if (token === undefined || !(await tx.users.deleteApiToken(id))) throw notFound('API token', id);
        await tx.audit.recordAudit(
          auditEntry(principal, {
            action: 'DELETE',
            targetType: 'API_TOKEN',
            targetId: id,
            appId: null,
            detail: { name: token.name },
          }),
          now,
        );
      });
      reply.code(204);
    },
  );
}

function toApiToken(row: ApiTokenRow) {
  return { id: row.id, name: row.name, createdAt: row.created_at, lastUsedAt: row.last_used_at };
}
