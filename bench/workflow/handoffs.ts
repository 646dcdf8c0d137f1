/**
 * The handoffs of the measured runs, read from their records once the children are stopped: for
 * every node with predecessors, the time from the last of its predecessors' results reaching the
 * server (their records' `handle_at`: an AND-join waits for its last one) to its own run leaving
 * for the executor (its record's `trigger_at`).
 *
 * The successor's record also says when the engine computed the step that started it
 * (`created_at`, the step's clock read after the run and its records were read), which splits a
 * handoff in two: `toStep` (the result queued, written, then the run read) and `toSend` (the
 * job read, the step committed, the new record read back and sent through the send fence).
 */
import type { Store } from '@tickwheel/server/internal';
import { Histogram } from '../fire/histogram.js';

/** IDs per `IN (…)` list: well under SQLite's and PostgreSQL's bind-parameter limits. */
const ID_CHUNK = 500;

export interface HandoffFigures {
  /** Handoffs measured (one per successor node per run). */
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface Handoffs {
  /** Every handoff of every measured run. */
  all: HandoffFigures;
  /** Per successor node: its incoming edges (`B → D, C → D`) and its handoffs. */
  perNode: Array<{ node: string; edges: string; figures: HandoffFigures }>;
  /** Predecessor's result stored → the step that started the successor computed. */
  toStep: HandoffFigures;
  /** That step → the successor's run sent. */
  toSend: HandoffFigures;
  /** Runs read, and those that did not succeed (a node failed or was never sent). */
  runs: number;
  runsNotSucceeded: number;
  /** Successor nodes whose record or whose predecessors' results are missing. */
  missing: number;
  /** The 10 slowest handoffs: run, node, ms, and the two parts. */
  slowest: Array<{ runId: number; node: string; ms: number; toStepMs: number; toSendMs: number }>;
}

interface NodeRecord {
  createdAt: number;
  triggerAt: number | null;
  handleAt: number | null;
}

interface Edge {
  from: string;
  to: string;
}

export async function readHandoffs(store: Store, runIds: readonly number[]): Promise<Handoffs> {
  const all = new Histogram();
  const toStep = new Histogram();
  const toSend = new Histogram();
  const perNode = new Map<string, { edges: string; histogram: Histogram }>();
  const slowest: Handoffs['slowest'] = [];
  let runs = 0;
  let runsNotSucceeded = 0;
  let missing = 0;

  for (let i = 0; i < runIds.length; i += ID_CHUNK) {
    const ids = runIds.slice(i, i + ID_CHUNK);
    const runRows = await store.db
      .selectFrom('workflow_run')
      .select(['id', 'status', 'definition'])
      .where('id', 'in', ids)
      .execute();
    const fireRows = await store.db
      .selectFrom('fire')
      .select(['workflow_run_id', 'workflow_node_key', 'created_at', 'trigger_at', 'handle_at'])
      .where('workflow_run_id', 'in', ids)
      .orderBy('id')
      .execute();
    const records = recordsByRun(fireRows);
    for (const run of runRows) {
      runs++;
      if (run.status !== 'succeeded') runsNotSucceeded++;
      const edges = (JSON.parse(run.definition) as { edges: Edge[] }).edges;
      const nodes = records.get(Number(run.id)) ?? new Map<string, NodeRecord>();
      for (const [node, from] of predecessorsOf(edges)) {
        const successor = nodes.get(node);
        const finishes = from.map((key) => nodes.get(key)?.handleAt ?? null);
        if (successor?.triggerAt == null || finishes.some((at) => at === null)) {
          missing++;
          continue;
        }
        const lastFinish = Math.max(...(finishes as number[]));
        const ms = successor.triggerAt - lastFinish;
        const stepMs = successor.createdAt - lastFinish;
        all.record(ms);
        toStep.record(stepMs);
        toSend.record(successor.triggerAt - successor.createdAt);
        let entry = perNode.get(node);
        if (entry === undefined) {
          entry = { edges: from.map((key) => `${key} → ${node}`).join(', '), histogram: new Histogram() };
          perNode.set(node, entry);
        }
        entry.histogram.record(ms);
        keepSlowest(slowest, {
          runId: Number(run.id),
          node,
          ms,
          toStepMs: stepMs,
          toSendMs: successor.triggerAt - successor.createdAt,
        });
      }
    }
  }
  return {
    all: figuresOf(all),
    perNode: [...perNode]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([node, entry]) => ({ node, edges: entry.edges, figures: figuresOf(entry.histogram) })),
    toStep: figuresOf(toStep),
    toSend: figuresOf(toSend),
    runs,
    runsNotSucceeded,
    missing,
    slowest,
  };
}

/**
 * Each run's node records by key. A node retried has several; its first send and its last
 * result are the ones that bound a handoff (the benchmark's handler does not fail, so there is one).
 */
function recordsByRun(
  rows: ReadonlyArray<{
    workflow_run_id?: number | null;
    workflow_node_key?: string | null;
    created_at: number;
    trigger_at: number | null;
    handle_at: number | null;
  }>,
): Map<number, Map<string, NodeRecord>> {
  const byRun = new Map<number, Map<string, NodeRecord>>();
  for (const row of rows) {
    if (row.workflow_run_id == null || row.workflow_node_key == null) continue;
    const runId = Number(row.workflow_run_id);
    let nodes = byRun.get(runId);
    if (nodes === undefined) {
      nodes = new Map();
      byRun.set(runId, nodes);
    }
    const first = nodes.get(row.workflow_node_key);
    nodes.set(row.workflow_node_key, {
      createdAt: Number(first?.createdAt ?? row.created_at),
      triggerAt: first?.triggerAt ?? (row.trigger_at === null ? null : Number(row.trigger_at)),
      handleAt: row.handle_at === null ? (first?.handleAt ?? null) : Number(row.handle_at),
    });
  }
  return byRun;
}

/** Every node with incoming edges → the keys of its predecessors. */
function predecessorsOf(edges: readonly Edge[]): Map<string, string[]> {
  const predecessors = new Map<string, string[]>();
  for (const edge of edges) predecessors.set(edge.to, [...(predecessors.get(edge.to) ?? []), edge.from]);
  return predecessors;
}

function keepSlowest(slowest: Handoffs['slowest'], entry: Handoffs['slowest'][number]): void {
  if (slowest.length >= 10 && entry.ms <= slowest.at(-1)!.ms) return;
  slowest.push(entry);
  slowest.sort((a, b) => b.ms - a.ms);
  slowest.length = Math.min(slowest.length, 10);
}

function figuresOf(histogram: Histogram): HandoffFigures {
  return {
    count: histogram.count,
    p50: histogram.percentile(0.5),
    p90: histogram.percentile(0.9),
    p99: histogram.percentile(0.99),
    max: histogram.max(),
  };
}
