/**
 * 0013 — which server node holds each pull executor's connection, for SQLite (the table is
 * described in the PostgreSQL migration of the same number).
 */
export default `
CREATE TABLE IF NOT EXISTS pull_connection (
  instance VARCHAR(64) PRIMARY KEY,
  node_id VARCHAR(64) NOT NULL,
  connected_at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS pull_connection_node ON pull_connection (node_id);
`;
