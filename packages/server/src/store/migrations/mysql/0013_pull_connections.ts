/**
 * 0013 — which server node holds each pull executor's connection, for MySQL and MariaDB (the
 * table is described in the PostgreSQL migration of the same number).
 *
 * The index is created with the table: MySQL has no CREATE INDEX IF NOT EXISTS, and CREATE TABLE
 * IF NOT EXISTS makes a first run that died half-way safe to repeat.
 */
export default `
CREATE TABLE IF NOT EXISTS pull_connection (
  instance VARCHAR(64) PRIMARY KEY,
  node_id VARCHAR(64) NOT NULL,
  connected_at BIGINT NOT NULL,
  KEY pull_connection_node (node_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
`;
