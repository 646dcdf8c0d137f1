/**
 * The caller's own account, for every user: `getCurrentUser`, `changePassword`, `logout`.
 * Changing the password needs the current one, and ends the user's other console sessions on
 * every node (the session that made the change stays signed in).
 */
import type { FastifyInstance } from 'fastify';
import { hashPassword } from '../security/passwords.js';
import { inAccountTransaction } from '../store/index.js';
import { auditEntry } from './audit-trail.js';
import { withRetryAfter } from './auth.js';
import { type ApiContext, principalOf, SECURITY } from './context.js';
import { ApiError, errorResponses, invalidField, unauthenticated } from './errors.js';
import { toUser } from './roles.js';
import {
  type ChangePasswordBody,
  ChangePasswordBody as ChangePasswordSchema,
  CurrentUser,
} from './schemas.js';
import { clearSessionCookie } from './session-cookie.js';

const TAGS = ['auth'];

export function registerMe(api: FastifyInstance, ctx: ApiContext): void {
  const { store, clock } = ctx.deps;

  api.get(
    '/me',
    {
      schema: {
        operationId: 'getCurrentUser',
        tags: TAGS,
        summary: 'The caller: username, role and the apps they may see',
        security: SECURITY,
        response: { 200: CurrentUser, ...errorResponses() },
      },
    },
    async (request) => {
      const principal = principalOf(ctx, request);
      const user = await store.users.findUserById(principal.userId);
      if (user === undefined) throw unauthenticated('the user no longer exists');
      return principal.csrfToken === undefined
        ? toUser(user)
        : { ...toUser(user), csrfToken: principal.csrfToken };
    },
  );

  api.post<{ Body: ChangePasswordBody }>(
    '/me/password',
    {
      schema: {
        operationId: 'changePassword',
        tags: TAGS,
        summary:
          "Change the caller's own password (the current one is required); ends the caller's other sessions and clears mustChangePassword",
        security: SECURITY,
        body: ChangePasswordSchema,
        response: { 204: { type: 'null', description: 'Changed' }, ...errorResponses(400, 429) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(ctx, request);
      const { currentPassword, newPassword } = request.body;
      const user = await store.users.findUserById(principal.userId);
      if (user === undefined) throw unauthenticated('the user no longer exists');
      const confirmed = await withRetryAfter(reply, () =>
        ctx.auth.confirmPassword(user, currentPassword, request.ip),
      );
      if (!confirmed) {
        throw new ApiError(
          'TW_ERR_INVALID_FIELD',
          'currentPassword: is not your password',
          'currentPassword',
        );
      }
      if (currentPassword === newPassword) {
        throw invalidField('newPassword', 'newPassword: must differ from the current password');
      }
      const passwordHash = await hashPassword(newPassword);
      const mustChange = Number(user.must_change_password) !== 0;
      const now = clock.now();
      await inAccountTransaction(store, async (tx) => {
        // The change a forced one waited for: the same session may do everything at once.
        await tx.users.updateUser(user.id, { passwordHash, mustChangePassword: false }, now);
        await tx.sessions.deleteUserSessions(user.id, principal.sessionIdHash);
        await tx.audit.recordAudit(
          auditEntry(principal, {
            action: 'CHANGE_PASSWORD',
            targetType: 'USER',
            targetId: user.id,
            appId: null,
            ...(mustChange ? { detail: { mustChangePassword: false } } : {}),
          }),
          now,
        );
      });
      await ctx.deps.passwordChanged?.(user.username);
      reply.code(204);
    },
  );

  api.post(
    '/logout',
    {
      schema: {
        operationId: 'logout',
        tags: TAGS,
        summary:
          'End the console session of the request (its cookie stops working); nothing for a bearer token',
        security: SECURITY,
        response: { 204: { type: 'null', description: 'Signed out' }, ...errorResponses() },
      },
    },
    async (request, reply) => {
      await ctx.auth.logout(principalOf(ctx, request));
      clearSessionCookie(request, reply);
      reply.code(204);
    },
  );
}
