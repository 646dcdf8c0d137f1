/**
 * 0011 — a credential per app, for SQLite (the columns are described in the PostgreSQL
 * migration of the same number).
 */
export default `
ALTER TABLE app_group ADD COLUMN access_token TEXT NULL;
ALTER TABLE app_group ADD COLUMN previous_access_token TEXT NULL;
ALTER TABLE app_group ADD COLUMN previous_token_until INTEGER NULL;
ALTER TABLE registry ADD COLUMN token_id TEXT NULL;
`;
