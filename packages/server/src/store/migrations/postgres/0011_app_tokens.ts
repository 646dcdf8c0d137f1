/**
 * 0011 — a credential per app, for PostgreSQL.
 *
 * `app_group.access_token`: the app's own executor token (its executors register, call back and
 * are called with it); NULL while the app still uses the installation-wide token (compatibility
 * mode, which every app created before this migration starts in: nothing stops working).
 * `app_group.previous_access_token` / `previous_token_until`: the token the last rotation
 * replaced, still accepted (and presented to the executors that registered with it) until that
 * time; a NULL token with a time set means the replaced one was the installation token.
 * `registry.token_id`: which token the executor registered with (the first 16 hex digits of its
 * SHA-256), so the server calls it with that one while a rotation's overlap lasts.
 */
export default `
ALTER TABLE app_group ADD COLUMN IF NOT EXISTS access_token VARCHAR(255) NULL;
ALTER TABLE app_group ADD COLUMN IF NOT EXISTS previous_access_token VARCHAR(255) NULL;
ALTER TABLE app_group ADD COLUMN IF NOT EXISTS previous_token_until BIGINT NULL;
ALTER TABLE registry ADD COLUMN IF NOT EXISTS token_id VARCHAR(16) NULL;
`;
