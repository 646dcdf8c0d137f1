/**
 * Users (admins only): `listUsers`, `createUser`, `updateUser`, `deleteUser`. Each change is
 * written with its audit entry in one transaction. A change of role or password, and deleting
 * the user, ends the user's console sessions on every node (their API tokens go with a deleted
 * user, and otherwise act with the user's new role). `updateUser` with `revokeApiTokens` revokes
 * the user's API tokens too, in the same transaction: a password reset after a takeover leaves
 * the intruder no way in. The last admin cannot be demoted or deleted.
 */
import type { FastifyInstance } from 'fastify';
import { hashPassword } from '../security/passwords.js';
import { type AccountTransaction, inAccountTransaction, type UserRow } from '../store/index.js';
import { auditEntry } from './audit-trail.js';
import type { Principal } from './auth.js';
import { type ApiContext, principalOf, requireAdmin, SECURITY } from './context.js';
import { conflict, errorResponses, invalidField, notFound, unknownInField } from './errors.js';
import { formatAppPermissions, parseAppPermissions, toApiRole, toStoredRole, toUser } from './roles.js';
import {
  IdParams,
  type NewUserBody,
  NewUserBody as NewUserSchema,
  Page,
  User,
  type UserPatchBody,
  UserPatchBody as UserPatchSchema,
  UserQuery,
} from './schemas.js';

const TAGS = ['users'];
/** The stored permission list's column size. */
const APP_PERMISSIONS_CHARS = 1024;

export function registerUsers(api: FastifyInstance, ctx: ApiContext): void {
  const { store, clock } = ctx.deps;

  api.get<{ Querystring: UserQuery }>(
    '/users',
    {
      schema: {
        operationId: 'listUsers',
        tags: TAGS,
        summary: 'List users by username (admins)',
        security: SECURITY,
        querystring: UserQuery,
        response: { 200: Page(User), ...errorResponses(400, 403) },
      },
    },
    async (request) => {
      requireAdmin(principalOf(ctx, request), 'list users');
      const { limit = 50, offset = 0 } = request.query;
      const [rows, total] = await Promise.all([
        store.users.listUsers(limit, offset),
        store.users.countUsers(),
      ]);
      return { items: rows.map(toUser), total, limit, offset };
    },
  );

  api.post<{ Body: NewUserBody }>(
    '/users',
    {
      schema: {
        operationId: 'createUser',
        tags: TAGS,
        summary: 'Create a user with a role and, for a USER, the apps they may see and operate (admins)',
        security: SECURITY,
        body: NewUserSchema,
        response: { 201: User, ...errorResponses(400, 403, 409) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(ctx, request);
      requireAdmin(principal, 'create users');
      const { username, password, role = 'USER', appIds = [], mustChangePassword = false } = request.body;
      const appPermissions = await checkedAppPermissions(ctx, appIds);
      if ((await store.users.findUserByName(username)) !== undefined) {
        throw conflict(`a user named ${username} already exists`, 'username');
      }
      const passwordHash = await hashPassword(password);
      const now = clock.now();
      let row: UserRow;
      try {
        row = await inAccountTransaction(store, async (tx) => {
          const created = await tx.users.createUser(
            { username, passwordHash, role: toStoredRole(role), appPermissions, mustChangePassword },
            now,
          );
          await tx.audit.recordAudit(
            auditEntry(principal, {
              action: 'CREATE',
              targetType: 'USER',
              targetId: created.id,
              appId: null,
              detail: { username, role, appIds: parseAppPermissions(appPermissions), mustChangePassword },
            }),
            now,
          );
          return created;
        });
      } catch (err) {
        // Created by someone else between our check and our insert (unique username).
        if ((await store.users.findUserByName(username)) !== undefined) {
          throw conflict(`a user named ${username} already exists`, 'username');
        }
        throw err;
      }
      reply.code(201);
      return toUser(row);
    },
  );

  api.patch<{ Params: IdParams; Body: UserPatchBody }>(
    '/users/:id',
    {
      schema: {
        operationId: 'updateUser',
        tags: TAGS,
        summary:
          "Change a user's password, role or apps (admins); a new password or role ends the user's sessions, revokeApiTokens revokes their API tokens, and mustChangePassword (with a reset's new password) makes them change it before anything else",
        security: SECURITY,
        params: IdParams,
        body: UserPatchSchema,
        response: { 200: User, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => {
      const principal = principalOf(ctx, request);
      requireAdmin(principal, 'change users');
      const id = request.params.id;
      const { password, role, appIds, mustChangePassword, revokeApiTokens = false } = request.body;
      const appPermissions = appIds === undefined ? undefined : await checkedAppPermissions(ctx, appIds);
      const passwordHash = password === undefined ? undefined : await hashPassword(password);
      const now = clock.now();
      await inAccountTransaction(store, async (tx) => {
        const existing = await tx.users.findUserById(id);
        if (existing === undefined) throw notFound('user', id);
        const newRole = role === undefined ? existing.role : toStoredRole(role);
        const roleChanged = newRole !== existing.role;
        if (roleChanged && existing.role === 'admin') await requireAnotherAdmin(tx, id, 'demote');
        await tx.users.updateUser(
          id,
          {
            ...(passwordHash === undefined ? {} : { passwordHash }),
            ...(roleChanged ? { role: newRole } : {}),
            ...(appPermissions === undefined ? {} : { appPermissions }),
            ...(mustChangePassword === undefined ? {} : { mustChangePassword }),
          },
          now,
        );
        if (roleChanged || passwordHash !== undefined) await tx.sessions.deleteUserSessions(id);
        const apiTokensRevoked = revokeApiTokens ? await tx.users.deleteUserApiTokens(id) : 0;
        await tx.audit.recordAudit(
          auditEntry(principal, {
            action: 'UPDATE',
            targetType: 'USER',
            targetId: id,
            appId: null,
            detail: {
              username: existing.username,
              fields: Object.keys(request.body),
              ...(roleChanged ? { role: toApiRole(newRole) } : {}),
              ...(appPermissions === undefined ? {} : { appIds: parseAppPermissions(appPermissions) }),
              ...(mustChangePassword === undefined ? {} : { mustChangePassword }),
              ...(revokeApiTokens ? { apiTokensRevoked } : {}),
            },
          }),
          now,
        );
      });
      const updated = (await store.users.findUserById(id))!;
      if (passwordHash !== undefined) await ctx.deps.passwordChanged?.(updated.username);
      return toUser(updated);
    },
  );

  api.delete<{ Params: IdParams }>(
    '/users/:id',
    {
      schema: {
        operationId: 'deleteUser',
        tags: TAGS,
        summary:
          'Delete a user with their API tokens and sessions (admins); the audit trail keeps their name',
        security: SECURITY,
        params: IdParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(ctx, request);
      requireAdmin(principal, 'delete users');
      await deleteUser(ctx, principal, request.params.id);
      reply.code(204);
    },
  );
}

async function deleteUser(ctx: ApiContext, principal: Principal, id: number): Promise<void> {
  const now = ctx.deps.clock.now();
  await inAccountTransaction(ctx.deps.store, async (tx) => {
    const existing = await tx.users.findUserById(id);
    if (existing === undefined) throw notFound('user', id);
    if (existing.role === 'admin') await requireAnotherAdmin(tx, id, 'delete');
    // Sessions and API tokens go with the row (ON DELETE CASCADE).
    await tx.users.deleteUser(id);
    await tx.audit.recordAudit(
      auditEntry(principal, {
        action: 'DELETE',
        targetType: 'USER',
        targetId: id,
        appId: null,
        detail: { username: existing.username },
      }),
      now,
    );
  });
}

/** @throws ApiError 409 when admin `id` is the only admin. */
async function requireAnotherAdmin(
  tx: AccountTransaction,
  id: number,
  what: 'demote' | 'delete',
): Promise<void> {
  const admins = await tx.users.lockAdmins();
  if (!admins.some((adminId) => adminId !== id)) {
    throw conflict(`user ${id} is the last admin; make another user ADMIN before you ${what} them`);
  }
}

/** The stored permission list of `appIds`, each an existing app. */
async function checkedAppPermissions(ctx: ApiContext, appIds: readonly number[]): Promise<string> {
  for (const [i, appId] of appIds.entries()) {
    if ((await ctx.deps.store.apps.findAppById(appId)) === undefined) {
      throw unknownInField(`appIds[${i}]`, 'app', appId);
    }
  }
  const stored = formatAppPermissions(appIds);
  if (stored.length > APP_PERMISSIONS_CHARS) {
    throw invalidField(
      'appIds',
      `appIds: the list is longer than the ${APP_PERMISSIONS_CHARS} characters it is stored in`,
    );
  }
  return stored;
}
