/**
 * Users as the REST API shows them. The API spells roles `ADMIN` and `USER`; the store keeps
 * `admin` and `user` (the first schema's values, which the `Principal` checks use), so the two
 * are mapped here and nowhere else. A user's app permissions are stored as a comma-separated id
 * list and shown as `appIds`.
 */
import type { UserRow } from '../store/index.js';
import type { User } from './schemas.js';

export type ApiRole = 'ADMIN' | 'USER';
export type StoredRole = UserRow['role'];

export function toStoredRole(role: ApiRole): StoredRole {
  return role === 'ADMIN' ? 'admin' : 'user';
}

export function toApiRole(role: StoredRole): ApiRole {
  return role === 'admin' ? 'ADMIN' : 'USER';
}

/** The app ids of a stored permission list (ignoring anything that is not a positive id). */
export function parseAppPermissions(stored: string): number[] {
  return stored
    .split(',')
    .map((part) => Number(part.trim()))
    .filter((id) => Number.isInteger(id) && id > 0);
}

/** The stored form of a permission list: sorted, without repeats. */
export function formatAppPermissions(appIds: readonly number[]): string {
  return [...new Set(appIds)].sort((a, b) => a - b).join(',');
}

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    username: row.username,
    role: toApiRole(row.role),
    appIds: parseAppPermissions(row.app_permissions),
    mustChangePassword: Number(row.must_change_password) !== 0,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
