/**
 * 0012 — where imported jobs and apps came from, and a forced password change, for SQLite (the
 * columns are described in the PostgreSQL migration of the same number).
 */
export default `
ALTER TABLE job ADD COLUMN origin TEXT NULL;
ALTER TABLE app_group ADD COLUMN origin TEXT NULL;
ALTER TABLE users ADD COLUMN must_change_password SMALLINT NOT NULL DEFAULT 0;
`;
