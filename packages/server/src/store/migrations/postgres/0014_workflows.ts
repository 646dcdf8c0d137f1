/**
 * 0014 — workflows, for PostgreSQL.
 *
 * `workflow`: a graph of nodes (jobs, decisions, nested workflows) joined by conditional edges,
 * with a schedule like a job's. `definition` holds the graph as JSON ({nodes, edges}); the
 * scheduler claims a due workflow by compare-and-set of `next_fire_at`, as the planner does a
 * job. `run_seq` is bumped by every run a workflow starts, under the row's lock, so two nodes
 * starting runs of one SERIAL or DISCARD workflow at once take turns and see each other's run.
 *
 * `workflow_run`: one run, with the graph as it was when it started (`definition`) and each
 * node's state (`state`, JSON). Every change of a run is a compare-and-set of `version`, in the
 * transaction that also creates the fire records of the nodes it starts: a node's completion
 * advances its run once, whichever server nodes see it.
 *
 * `fire.workflow_run_id` / `workflow_node_key`: the run and node a fire record belongs to (a
 * broadcast's shards carry neither; their broadcast's record does). `workflow_context`: what
 * the node's run request carries (the run's param, the upstream nodes' outputs, a timeout
 * override), JSON. `output`: the JSON value a Tickwheel handler returned for a workflow node.
 */
export default `
CREATE TABLE IF NOT EXISTS workflow (
  id BIGSERIAL PRIMARY KEY,
  app_id BIGINT NOT NULL,
  name VARCHAR(255) NOT NULL,
  description VARCHAR(512) NOT NULL DEFAULT '',
  schedule_type VARCHAR(16) NOT NULL,
  schedule_conf VARCHAR(255) NOT NULL,
  time_zone VARCHAR(64) NOT NULL,
  misfire_strategy VARCHAR(16) NOT NULL,
  concurrency VARCHAR(16) NOT NULL,
  definition TEXT NOT NULL,
  alarm_email VARCHAR(255) NOT NULL DEFAULT '',
  alarm_channel_ids VARCHAR(255) NOT NULL DEFAULT '',
  trigger_status SMALLINT NOT NULL DEFAULT 0,
  next_fire_at BIGINT NULL,
  run_seq BIGINT NOT NULL DEFAULT 0,
  origin VARCHAR(255) NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS workflow_app_name_idx ON workflow (app_id, name);
CREATE INDEX IF NOT EXISTS workflow_due_idx ON workflow (trigger_status, next_fire_at);

CREATE TABLE IF NOT EXISTS workflow_run (
  id BIGSERIAL PRIMARY KEY,
  workflow_id BIGINT NOT NULL,
  app_id BIGINT NOT NULL,
  status VARCHAR(16) NOT NULL,
  trigger_type VARCHAR(16) NOT NULL,
  param TEXT NULL,
  scheduled_at BIGINT NOT NULL,
  started_at BIGINT NULL,
  finished_at BIGINT NULL,
  parent_run_id BIGINT NULL,
  parent_node_key VARCHAR(64) NULL,
  definition TEXT NOT NULL,
  state TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 0,
  alarm_status SMALLINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS workflow_run_workflow_idx ON workflow_run (workflow_id, id);
CREATE INDEX IF NOT EXISTS workflow_run_status_idx ON workflow_run (status, updated_at);
CREATE INDEX IF NOT EXISTS workflow_run_parent_idx ON workflow_run (parent_run_id) WHERE parent_run_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS workflow_run_scheduled_idx ON workflow_run (scheduled_at);

ALTER TABLE fire ADD COLUMN IF NOT EXISTS workflow_run_id BIGINT NULL;
ALTER TABLE fire ADD COLUMN IF NOT EXISTS workflow_node_key VARCHAR(64) NULL;
ALTER TABLE fire ADD COLUMN IF NOT EXISTS workflow_context TEXT NULL;
ALTER TABLE fire ADD COLUMN IF NOT EXISTS output TEXT NULL;
CREATE INDEX IF NOT EXISTS fire_workflow_run_idx ON fire (workflow_run_id) WHERE workflow_run_id IS NOT NULL;
`;
