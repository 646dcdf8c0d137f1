/**
 * 0004 — console sessions in the database and the audit trail, for SQLite.
 *
 * Sessions live in `user_session` rather than in one node's memory, so signing in on one node
 * works on every node, and revoking them (password change, role change, user deleted) reaches
 * every node. Only the SHA-256 of a session id is stored, as for API tokens.
 *
 * `audit_log` keeps who did what; it has no foreign key to `users`, so the trail of a deleted
 * user stays (with the username it had).
 */
export default `
CREATE TABLE IF NOT EXISTS user_session (
  id_hash VARCHAR(64) NOT NULL PRIMARY KEY,
  user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  csrf_token VARCHAR(64) NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);

CREATE INDEX IF NOT EXISTS user_session_user_idx ON user_session (user_id);

CREATE INDEX IF NOT EXISTS user_session_expires_idx ON user_session (expires_at);

CREATE TABLE IF NOT EXISTS audit_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at BIGINT NOT NULL,
  user_id BIGINT NOT NULL,
  username VARCHAR(64) NOT NULL,
  action VARCHAR(32) NOT NULL,
  target_type VARCHAR(32) NOT NULL,
  target_id BIGINT NULL,
  app_id BIGINT NULL,
  detail TEXT NOT NULL
);

CREATE INDEX IF NOT EXISTS audit_log_at_idx ON audit_log (at);

CREATE INDEX IF NOT EXISTS audit_log_user_idx ON audit_log (user_id, at);

CREATE INDEX IF NOT EXISTS audit_log_target_idx ON audit_log (target_type, target_id, at);
`;
