/**
 * 0012 — where imported jobs and apps came from, and a forced password change, for PostgreSQL.
 *
 * `job.origin` / `app_group.origin`: where the job or app was imported from, as the importer
 * wrote it (e.g. `xxl-job mysql://db:3306/xxl_job #12`); NULL for those made in Tickwheel.
 * `users.must_change_password`: 1 while the user must change their password before the API
 * answers them anything else (set by an admin or an importer, cleared by `changePassword`); 0
 * for every user that exists before this migration.
 *
 * Adding a nullable column, or one with a constant default, rewrites no rows.
 */
export default `
ALTER TABLE job ADD COLUMN IF NOT EXISTS origin VARCHAR(255) NULL;
ALTER TABLE app_group ADD COLUMN IF NOT EXISTS origin VARCHAR(255) NULL;
ALTER TABLE users ADD COLUMN IF NOT EXISTS must_change_password SMALLINT NOT NULL DEFAULT 0;
`;
