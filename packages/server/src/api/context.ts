/** What every REST resource's routes are built with: the dependencies and the route helpers. */
import type { FastifyRequest } from 'fastify';
import type { Auth, Principal } from './auth.js';
import { canAccessApp } from './auth.js';
import { forbidden, notFound } from './errors.js';
import type { ResolvedRestApiDeps } from './index.js';

export interface ApiContext {
  deps: ResolvedRestApiDeps;
  auth: Auth;
}

/** The caller of a request. */
export function principalOf(ctx: ApiContext, request: FastifyRequest): Principal {
  return ctx.auth.principalOf(request);
}

/**
 * @throws ApiError 404 — the very answer a missing `what` gets — unless the caller may see app
 * `appId`, the app of the `what` named `id` (a job, a fire, the app itself). A 403 would tell a
 * user which of another app's ids exist.
 */
export function requireVisible(principal: Principal, appId: number, what: string, id: number): void {
  if (!canAccessApp(principal, appId)) throw notFound(what, id);
}

/**
 * @throws ApiError 403 unless the caller may manage app `appId`, for an app named by a filter or
 * a body field, which answers the same whether the app exists or not.
 */
export function requireAppAccess(principal: Principal, appId: number): void {
  if (!canAccessApp(principal, appId)) {
    throw forbidden(`user ${principal.username} has no permission on app ${appId}`);
  }
}

/**
 * The app filter of a listing: the app asked for (when the caller may see it), else every app
 * for an admin, else the user's own apps. Spread it into a store filter (`JobFilter`,
 * `FireFilter`), so a listing never shows what `canAccessApp` would refuse.
 *
 * @throws ApiError 403 when `appId` names an app the caller may not see.
 */
export function appFilter(
  principal: Principal,
  appId: number | undefined,
): { appId?: number; appIds?: readonly number[] } {
  if (appId !== undefined) {
    requireAppAccess(principal, appId);
    return { appId };
  }
  return principal.role === 'admin' ? {} : { appIds: [...principal.appIds] };
}

/** @throws ApiError 403 unless the caller is an admin. */
export function requireAdmin(principal: Principal, what: string): void {
  if (principal.role !== 'admin') throw forbidden(`only admins may ${what}`);
}

/** Both ways in: every operation but `login` takes either. */
export const SECURITY: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { cookieAuth: [] }];
