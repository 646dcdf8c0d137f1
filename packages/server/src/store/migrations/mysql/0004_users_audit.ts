/**
 * 0004 — console sessions in the database and the audit trail, for MySQL and MariaDB. Each
 * statement can run again (IF NOT EXISTS, indexes inline), as MySQL commits DDL implicitly.
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
  user_id BIGINT NOT NULL,
  csrf_token VARCHAR(64) NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  KEY user_session_user_idx (user_id),
  KEY user_session_expires_idx (expires_at),
  CONSTRAINT user_session_user_fk FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS audit_log (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  at BIGINT NOT NULL,
  user_id BIGINT NOT NULL,
  username VARCHAR(64) NOT NULL,
  action VARCHAR(32) NOT NULL,
  target_type VARCHAR(32) NOT NULL,
  target_id BIGINT NULL,
  app_id BIGINT NULL,
  detail TEXT NOT NULL,
  KEY audit_log_at_idx (at),
  KEY audit_log_user_idx (user_id, at),
  KEY audit_log_target_idx (target_type, target_id, at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
`;
