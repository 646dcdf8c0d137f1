/**
 * 0013 — which server node holds each pull executor's connection (the `http-pull` transport),
 * for PostgreSQL.
 *
 * `pull_connection`: one row per executor instance connected over `api/pull`, written by the
 * node it connected to (upserted at connect, deleted at close by that node only). A node that
 * must call an instance it does not hold finds the holder here and relays the call to it;
 * rows of nodes whose `cluster_node` heartbeat stopped are ignored (a node that died leaves its
 * rows behind until the executor connects elsewhere).
 */
export default `
CREATE TABLE IF NOT EXISTS pull_connection (
  instance VARCHAR(64) PRIMARY KEY,
  node_id VARCHAR(64) NOT NULL,
  connected_at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS pull_connection_node ON pull_connection (node_id);
`;
