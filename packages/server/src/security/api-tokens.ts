/**
 * Bearer tokens of the REST API. A token is 32 random bytes, so a plain SHA-256 of it is a safe
 * stored form: there is no dictionary to try against it, and a lookup by hash needs no salt per
 * row (a slow, salted hash would make every API request pay scrypt's cost).
 */
import { createHash, randomBytes } from 'node:crypto';

/** Prefix that makes a leaked token recognisable to secret scanners and people. */
export const API_TOKEN_PREFIX = 'tw_';

/** Tokens a user chose (`--api-token`) must be at least this long to stand in for a random one. */
export const MIN_SEEDED_TOKEN_LENGTH = 24;

/** A new random bearer token, e.g. `tw_3q2-7wXh...` (46 characters). */
export function generateApiToken(): string {
  return API_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** The stored form of a bearer token: hex SHA-256. */
export function hashApiToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A random secret of `bytes` bytes in base64url (passwords, access tokens, session ids, CSRF tokens). */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
