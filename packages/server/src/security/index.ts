/** Secrets: first-start generation, password hashing, bearer token hashing, constant-time comparison. */
export { API_TOKEN_PREFIX, generateApiToken, hashApiToken, randomSecret } from './api-tokens.js';
export { safeEqual } from './constant-time.js';
export { hashPassword, verifyPassword } from './passwords.js';
export {
  ADMIN_USERNAME,
  type EnsuredSecrets,
  EXECUTOR_TOKEN_SETTING,
  ensureSecrets,
  type SecretSeeds,
  secretSeedsFrom,
} from './secrets.js';
