/** What every REST resource's routes are built with: the dependencies and the route helpers. */
import type { FastifyRequest } from 'fastify';
import type { Auth, Principal } from './auth.js';
import { canAccessApp } from './auth.js';
import { forbidden, invalidField } from './errors.js';
import type { ResolvedRestApiDeps } from './index.js';

export interface ApiContext {
  deps: ResolvedRestApiDeps;
  auth: Auth;
}

/** The caller of a request. */
export function principalOf(ctx: ApiContext, request: FastifyRequest): Principal {
  return ctx.auth.principalOf(request);
}

/** @throws ApiError 403 unless the caller may manage app `appId`. */
export function requireAppAccess(principal: Principal, appId: number): void {
  if (!canAccessApp(principal, appId)) {
    throw forbidden(`user ${principal.username} has no permission on app ${appId}`);
  }
}

/**
 * The app a listing is limited to. Admins may list across apps; a user lists one of their apps,
 * and needs no filter when they have only one (listings over several apps of a user come with
 * the users-and-roles issue).
 */
export function appScope(principal: Principal, appId: number | undefined): number | undefined {
  if (appId !== undefined) {
    requireAppAccess(principal, appId);
    return appId;
  }
  if (principal.role === 'admin') return undefined;
  const [only, ...more] = principal.appIds;
  if (only !== undefined && more.length === 0) return only;
  throw invalidField(
    'appId',
    'appId: is required for a user without the admin role (one of the apps you have permission on)',
  );
}

/** @throws ApiError 403 unless the caller is an admin. */
export function requireAdmin(principal: Principal, what: string): void {
  if (principal.role !== 'admin') throw forbidden(`only admins may ${what}`);
}

/** Both ways in: every operation but `login` takes either. */
export const SECURITY: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { cookieAuth: [] }];
