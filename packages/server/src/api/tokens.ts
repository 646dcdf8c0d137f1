/** `createApiToken`: a bearer token for the caller, shown once (only its hash is stored). */
import type { FastifyInstance } from 'fastify';
import { generateApiToken, hashApiToken } from '../security/api-tokens.js';
import { type ApiContext, principalOf, SECURITY } from './context.js';
import { errorResponses } from './errors.js';
import { CreatedApiToken, type NewApiTokenBody, NewApiTokenBody as NewApiTokenSchema } from './schemas.js';

export function registerTokens(api: FastifyInstance, ctx: ApiContext): void {
  api.post<{ Body: NewApiTokenBody }>(
    '/tokens',
    {
      schema: {
        operationId: 'createApiToken',
        tags: ['tokens'],
        summary: 'Create a bearer token acting as the caller; the answer is the only time it is shown',
        security: SECURITY,
        body: NewApiTokenSchema,
        response: { 201: CreatedApiToken, ...errorResponses(400) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(ctx, request);
      const token = generateApiToken();
      const row = await ctx.deps.store.users.createApiToken(
        { name: request.body.name, tokenHash: hashApiToken(token), userId: principal.userId },
        ctx.deps.clock.now(),
      );
      reply.code(201);
      return { id: row.id, name: row.name, token, createdAt: row.created_at };
    },
  );
}
