/**
 * How a workflow run moves on: a pure function from the run's node states and what became of
 * its running nodes (their fire records, their nested runs) to the new states and the nodes to
 * start. The engine (engine.ts) reads the inputs, calls `progress`, and writes the result with a
 * compare-and-set of the run's version, so whichever server node computes a step, it is taken
 * once.
 *
 * The rules:
 * - An edge `from → to` is satisfied when `from` ended as its condition says: SUCCESS (the
 *   default) when it succeeded, FAILURE when it failed, ALWAYS when it ended at all (skipped
 *   included). A node marked `continueOnFailure` that failed counts as succeeded for its edges.
 *   An edge with a `value` (from a DECISION) is satisfied when the decision succeeded with that
 *   value.
 * - A node runs when every incoming edge is satisfied (AND-join); it is skipped as soon as one
 *   can no longer be (so the skip propagates down SUCCESS and FAILURE edges). A disabled node is
 *   skipped when its turn comes.
 * - A DECISION is evaluated in the step that makes it ready (decision.ts); its failure (an
 *   expression that does not evaluate) is a node failure like any other.
 * - The run ends when no node waits or runs: failed when a node failed that neither continues on
 *   failure nor has a FAILURE or ALWAYS edge to handle it, succeeded otherwise.
 */
import type { WorkflowEdge, WorkflowNode, WorkflowNodeStatus, WorkflowRunStatus } from '@tickwheel/protocol';
import { evaluateDecision } from './decision.js';

export interface NodeState {
  status: WorkflowNodeStatus;
  startedAt: number | null;
  finishedAt: number | null;
  /** JOB: the record of the node's current attempt (its retries hang off it). */
  fireId?: number;
  /** WORKFLOW: the nested run. */
  childRunId?: number;
  /** DECISION: the expression's value, as text. */
  decision?: string;
  /** What the node produced: a JOB's handler output, a nested run's outputs by node. */
  output?: unknown;
  /** Why the node ended so, when it is not plain (a skip's reason, a decision's error, a mark). */
  message?: string | null;
  /** Who marked the node succeeded or skipped by hand. */
  markedBy?: string;
}

export interface RunState {
  nodes: Record<string, NodeState>;
}

export interface Definition {
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
}

/** What became of a running node since the state was written: its fire's or nested run's end. */
export interface NodeOutcome {
  status: 'succeeded' | 'failed' | 'stopped';
  output?: unknown;
  message?: string | null;
}

export interface ProgressInput {
  definition: Definition;
  state: RunState;
  /** `stopped`: nothing starts any more; running nodes that end are recorded. */
  runStatus: WorkflowRunStatus;
  run: { id: number; param: string | null };
  /** The outcome of each running node that ended (absent: still running). */
  outcomes: ReadonlyMap<string, NodeOutcome>;
  now: number;
}

export interface ProgressResult {
  state: RunState;
  /** JOB and WORKFLOW nodes that became running in this step: the engine creates their fires or runs. */
  start: WorkflowNode[];
  runStatus: WorkflowRunStatus;
  /** Whether anything changed (nothing to write otherwise). */
  changed: boolean;
}

/** The first state of a run: every node waiting. */
export function initialState(definition: Definition): RunState {
  return {
    nodes: Object.fromEntries(
      definition.nodes.map((node) => [
        node.key,
        { status: 'waiting' as const, startedAt: null, finishedAt: null },
      ]),
    ),
  };
}

const ENDED: ReadonlySet<WorkflowNodeStatus> = new Set(['succeeded', 'failed', 'skipped', 'stopped']);

export function isEnded(status: WorkflowNodeStatus): boolean {
  return ENDED.has(status);
}

/** One step: the running nodes' outcomes applied, then every node that can run or be skipped settled. */
export function progress(input: ProgressInput): ProgressResult {
  const { definition, runStatus, now } = input;
  const nodes: Record<string, NodeState> = structuredClone(input.state.nodes);
  let changed = false;
  for (const [key, outcome] of input.outcomes) {
    const node = nodes[key];
    if (node?.status !== 'running') continue;
    nodes[key] = {
      ...node,
      status: runStatus === 'stopped' && outcome.status === 'failed' ? 'stopped' : outcome.status,
      finishedAt: now,
      ...(outcome.output === undefined ? {} : { output: outcome.output }),
      ...(outcome.message === undefined ? {} : { message: outcome.message }),
    };
    changed = true;
  }
  const start: WorkflowNode[] = [];
  if (runStatus === 'running') {
    const byKey = new Map(definition.nodes.map((node) => [node.key, node]));
    const incoming = incomingEdges(definition);
    for (let settled = true; settled; ) {
      settled = false;
      for (const node of definition.nodes) {
        const state = nodes[node.key];
        if (state?.status !== 'waiting') continue;
        const verdict = joinVerdict(incoming.get(node.key) ?? [], nodes, byKey);
        if (verdict.kind === 'pending') continue;
        settled = true;
        changed = true;
        if (verdict.kind === 'skip') {
          nodes[node.key] = { ...state, status: 'skipped', finishedAt: now, message: verdict.reason };
        } else if (node.disabled === true) {
          nodes[node.key] = { ...state, status: 'skipped', finishedAt: now, message: 'disabled' };
        } else if ((node.type ?? 'JOB') === 'DECISION') {
          nodes[node.key] = decide(node, state, input, nodes, incoming, now);
        } else {
          nodes[node.key] = { ...state, status: 'running', startedAt: now, finishedAt: null, message: null };
          start.push(node);
        }
      }
    }
  }
  const status = runStatusOf(definition, nodes, runStatus);
  return { state: { nodes }, start, runStatus: status, changed: changed || status !== runStatus };
}

/** The direct upstream of `key` as downstream nodes see it: `{key: {status, output}}`. */
export function upstreamOf(
  key: string,
  definition: Definition,
  nodes: Readonly<Record<string, NodeState>>,
): Record<string, { status: WorkflowNodeStatus; output: unknown }> {
  const upstream: Record<string, { status: WorkflowNodeStatus; output: unknown }> = {};
  for (const edge of definition.edges) {
    if (edge.to !== key) continue;
    const from = nodes[edge.from];
    if (from !== undefined) upstream[edge.from] = { status: from.status, output: from.output ?? null };
  }
  return upstream;
}

/** Every node's output by key (what `${A.output}` placeholders read). */
export function outputsOf(nodes: Readonly<Record<string, NodeState>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(nodes).flatMap(([key, node]) => (node.output === undefined ? [] : [[key, node.output]])),
  );
}

/**
 * The nodes after `key` (transitively) that were skipped because of how it ended, back to
 * waiting: a retried or marked node's successors get their turn again. Disabled nodes stay skipped.
 */
export function reopenAfter(definition: Definition, nodes: Record<string, NodeState>, key: string): void {
  const byKey = new Map(definition.nodes.map((node) => [node.key, node]));
  const queue = [key];
  const seen = new Set<string>([key]);
  while (queue.length > 0) {
    const from = queue.shift()!;
    for (const edge of definition.edges) {
      if (edge.from !== from || seen.has(edge.to)) continue;
      seen.add(edge.to);
      const state = nodes[edge.to];
      if (state?.status === 'skipped' && byKey.get(edge.to)?.disabled !== true) {
        nodes[edge.to] = { status: 'waiting', startedAt: null, finishedAt: null };
        queue.push(edge.to);
      }
    }
  }
}

function incomingEdges(definition: Definition): Map<string, WorkflowEdge[]> {
  const incoming = new Map<string, WorkflowEdge[]>();
  for (const edge of definition.edges) {
    const list = incoming.get(edge.to) ?? [];
    list.push(edge);
    incoming.set(edge.to, list);
  }
  return incoming;
}

type JoinVerdict = { kind: 'pending' } | { kind: 'run' } | { kind: 'skip'; reason: string };

function joinVerdict(
  edges: readonly WorkflowEdge[],
  nodes: Readonly<Record<string, NodeState>>,
  byKey: ReadonlyMap<string, WorkflowNode>,
): JoinVerdict {
  let pending = false;
  for (const edge of edges) {
    const from = nodes[edge.from];
    if (from === undefined || !isEnded(from.status)) {
      pending = true;
      continue;
    }
    if (!satisfies(edge, from, byKey.get(edge.from))) {
      return {
        kind: 'skip',
        reason: `edge from ${edge.from} (${describeEdge(edge)}) not taken: ${edge.from} ${from.status}`,
      };
    }
  }
  return pending ? { kind: 'pending' } : { kind: 'run' };
}

function satisfies(edge: WorkflowEdge, from: NodeState, node: WorkflowNode | undefined): boolean {
  const condition = edge.condition ?? 'SUCCESS';
  if (condition === 'ALWAYS' && edge.value === undefined) return true;
  const succeeded =
    from.status === 'succeeded' || (from.status === 'failed' && node?.continueOnFailure === true);
  if (edge.value !== undefined) return succeeded && from.decision === edge.value;
  if (condition === 'SUCCESS') return succeeded;
  return from.status === 'failed' && !succeeded;
}

function describeEdge(edge: WorkflowEdge): string {
  return edge.value === undefined ? (edge.condition ?? 'SUCCESS') : `value ${JSON.stringify(edge.value)}`;
}

function decide(
  node: WorkflowNode,
  state: NodeState,
  input: ProgressInput,
  nodes: Record<string, NodeState>,
  incoming: ReadonlyMap<string, WorkflowEdge[]>,
  now: number,
): NodeState {
  const upstream: Record<string, { status: WorkflowNodeStatus; output: unknown }> = {};
  for (const edge of incoming.get(node.key) ?? []) {
    const from = nodes[edge.from]!;
    upstream[edge.from] = { status: from.status, output: from.output ?? null };
  }
  const all = Object.fromEntries(
    Object.entries(nodes).map(([key, other]) => [
      key,
      { status: other.status, output: other.output ?? null },
    ]),
  );
  const verdict = evaluateDecision(node.expression ?? '', {
    run: { id: input.run.id, param: input.run.param ?? '' },
    upstream,
    nodes: all,
  });
  return verdict.ok
    ? {
        ...state,
        status: 'succeeded',
        startedAt: now,
        finishedAt: now,
        decision: verdict.value,
        output: verdict.value,
      }
    : { ...state, status: 'failed', startedAt: now, finishedAt: now, message: verdict.error };
}

function runStatusOf(
  definition: Definition,
  nodes: Readonly<Record<string, NodeState>>,
  current: WorkflowRunStatus,
): WorkflowRunStatus {
  if (current !== 'running' && current !== 'stopped') return current;
  if (Object.values(nodes).some((node) => node.status === 'running')) return current;
  if (current === 'stopped') return 'stopped';
  if (Object.values(nodes).some((node) => node.status === 'waiting')) return current;
  const handled = new Set(
    definition.edges
      .filter(
        (edge) => edge.value === undefined && (edge.condition === 'FAILURE' || edge.condition === 'ALWAYS'),
      )
      .map((edge) => edge.from),
  );
  const unhandled = definition.nodes.some(
    (node) =>
      nodes[node.key]?.status === 'failed' && node.continueOnFailure !== true && !handled.has(node.key),
  );
  return unhandled ? 'failed' : 'succeeded';
}
