/**
 * Workflows: the shapes and rules shared by the server (which stores and runs them), the console
 * (whose editor checks a graph before saving it) and the CLI. A workflow is a graph of nodes —
 * jobs, decisions, nested workflows — joined by edges with conditions; see docs/workflows.md.
 *
 * What lives here is pure: enums, limits, the definition types and `checkWorkflowGraph`, which
 * finds the first problem of a graph (an unknown node on an edge, a repeated key, a cycle) and
 * names it. The server runs the same check before it stores a workflow, so a graph the console
 * accepted is never refused for a reason it could have said first.
 */

/** How a workflow's runs overlap: SERIAL queues a new run behind the running one, DISCARD skips it. */
export const WORKFLOW_CONCURRENCIES = ['SERIAL', 'DISCARD', 'PARALLEL'] as const;
export type WorkflowConcurrency = (typeof WORKFLOW_CONCURRENCIES)[number];

/** A workflow's schedule: as a job's, without FIX_DELAY (a run's end is not one job's end). */
export const WORKFLOW_SCHEDULE_TYPES = ['NONE', 'CRON', 'FIX_RATE', 'ONCE'] as const;
export type WorkflowScheduleType = (typeof WORKFLOW_SCHEDULE_TYPES)[number];

/** JOB runs a job; DECISION evaluates a CEL expression and follows the edges labelled with its value; WORKFLOW runs another workflow as one step. */
export const WORKFLOW_NODE_TYPES = ['JOB', 'DECISION', 'WORKFLOW'] as const;
export type WorkflowNodeType = (typeof WORKFLOW_NODE_TYPES)[number];

/** When an edge is satisfied by how its source node ended. */
export const WORKFLOW_EDGE_CONDITIONS = ['SUCCESS', 'FAILURE', 'ALWAYS'] as const;
export type WorkflowEdgeCondition = (typeof WORKFLOW_EDGE_CONDITIONS)[number];

/** A node's state in a run. */
export const WORKFLOW_NODE_STATUSES = [
  'waiting',
  'running',
  'succeeded',
  'failed',
  'skipped',
  'stopped',
] as const;
export type WorkflowNodeStatus = (typeof WORKFLOW_NODE_STATUSES)[number];

/** A run's state: `waiting` behind a SERIAL workflow's running run; `skipped` by DISCARD. */
export const WORKFLOW_RUN_STATUSES = [
  'waiting',
  'running',
  'succeeded',
  'failed',
  'stopped',
  'skipped',
] as const;
export type WorkflowRunStatus = (typeof WORKFLOW_RUN_STATUSES)[number];

/** How a workflow run was started. */
export const WORKFLOW_TRIGGER_TYPES = [
  'CRON',
  'FIX_RATE',
  'ONCE',
  'MISFIRE',
  'MANUAL',
  'API',
  'PARENT',
] as const;
export type WorkflowTriggerType = (typeof WORKFLOW_TRIGGER_TYPES)[number];

export const WORKFLOW_LIMITS = {
  /** Nodes in one workflow. */
  nodes: 200,
  /** Edges in one workflow. */
  edges: 1000,
  /** A node key: what edges and `${key.output}` placeholders use. */
  keyPattern: /^[A-Za-z][A-Za-z0-9_-]{0,63}$/,
  /** A decision's CEL expression, in characters. */
  expressionLength: 2000,
  /** A handler's output, as JSON text in UTF-8. */
  outputBytes: 64 * 1024,
  /** A run's param, in UTF-8 bytes (as a job's executorParam). */
  paramBytes: 64 * 1024,
  /** Nesting depth of WORKFLOW nodes (a workflow running a workflow running …). */
  nestingDepth: 5,
} as const;

/** One node of a workflow's definition. */
export interface WorkflowNode {
  /** Unique in the workflow; `^[A-Za-z][A-Za-z0-9_-]{0,63}$`. */
  key: string;
  /** Default JOB. */
  type?: WorkflowNodeType;
  /** JOB: the job to run (any app the author may use). */
  jobId?: number;
  /**
   * JOB: the param this node runs with instead of the job's own. `${run.param}` is the run's
   * param, `${A.output}` node A's output (JSON text; a string output as is), `${A.output.x.y}`
   * a field of it.
   */
  param?: string | null;
  /** JOB: seconds, instead of the job's executorTimeout (0 = none). */
  timeoutSeconds?: number | null;
  /** JOB: retries, instead of the job's executorFailRetryCount. */
  retryCount?: number | null;
  /** DECISION: a CEL expression over `run` ({id, param}) and `upstream` ({key: {status, output}}). */
  expression?: string;
  /** WORKFLOW: the workflow this node runs as one step. */
  workflowId?: number;
  /** A failure of this node counts as a success for its outgoing edges (the run still shows it failed). */
  continueOnFailure?: boolean;
  /** Left out of runs: the node is skipped, and its successors treat it as skipped. */
  disabled?: boolean;
  /** Where the editor draws the node. */
  position?: { x: number; y: number };
}

/** An edge: `to` may run once `from` ended as `condition` says (default SUCCESS). */
export interface WorkflowEdge {
  from: string;
  to: string;
  condition?: WorkflowEdgeCondition;
  /** From a DECISION node: followed only when the expression's value (as text) equals this. */
  value?: string;
}

/** A problem of a graph, naming the field as the REST API does (`nodes[2].key`, `edges[0].to`). */
export interface WorkflowGraphProblem {
  field: string;
  message: string;
  /** For a cycle: the keys around it, the first repeated at the end (`A → B → A`). */
  cycle?: string[];
}

/**
 * The first structural problem of a graph, or null: keys (pattern, unique), each node's fields
 * for its type, edges between known nodes (no self-loops, no duplicates, `value` only from a
 * decision), and no cycle. Job and workflow ids are checked by the server against its store.
 */
export function checkWorkflowGraph(
  nodes: readonly WorkflowNode[],
  edges: readonly WorkflowEdge[],
): WorkflowGraphProblem | null {
  if (nodes.length === 0) return { field: 'nodes', message: 'a workflow needs at least one node' };
  if (nodes.length > WORKFLOW_LIMITS.nodes) {
    return { field: 'nodes', message: `at most ${WORKFLOW_LIMITS.nodes} nodes` };
  }
  if (edges.length > WORKFLOW_LIMITS.edges) {
    return { field: 'edges', message: `at most ${WORKFLOW_LIMITS.edges} edges` };
  }
  const types = new Map<string, WorkflowNodeType>();
  for (const [i, node] of nodes.entries()) {
    const problem = checkNode(node, i, types);
    if (problem !== null) return problem;
    types.set(node.key, node.type ?? 'JOB');
  }
  const seen = new Set<string>();
  for (const [i, edge] of edges.entries()) {
    for (const end of ['from', 'to'] as const) {
      if (!types.has(edge[end])) {
        return { field: `edges[${i}].${end}`, message: `no node has the key '${String(edge[end])}'` };
      }
    }
    if (edge.from === edge.to) {
      return { field: `edges[${i}].to`, message: `an edge cannot join '${edge.from}' to itself` };
    }
    if (edge.condition !== undefined && !WORKFLOW_EDGE_CONDITIONS.includes(edge.condition)) {
      return {
        field: `edges[${i}].condition`,
        message: `must be one of ${WORKFLOW_EDGE_CONDITIONS.join(', ')}`,
      };
    }
    if (edge.value !== undefined && types.get(edge.from) !== 'DECISION') {
      return { field: `edges[${i}].value`, message: `only an edge from a DECISION node has a value` };
    }
    const id = `${edge.from}\u0000${edge.to}\u0000${edge.value ?? ''}`;
    if (seen.has(id)) {
      return { field: `edges[${i}]`, message: `a second edge from '${edge.from}' to '${edge.to}'` };
    }
    seen.add(id);
  }
  const cycle = findWorkflowCycle(nodes, edges);
  if (cycle !== null) {
    return { field: 'edges', message: `the graph has a cycle: ${cycle.join(' → ')}`, cycle };
  }
  return null;
}

function checkNode(
  node: WorkflowNode,
  i: number,
  known: ReadonlyMap<string, WorkflowNodeType>,
): WorkflowGraphProblem | null {
  const at = `nodes[${i}]`;
  if (typeof node.key !== 'string' || !WORKFLOW_LIMITS.keyPattern.test(node.key)) {
    return {
      field: `${at}.key`,
      message: 'must start with a letter and hold only letters, digits, _ and - (at most 64)',
    };
  }
  if (known.has(node.key)) return { field: `${at}.key`, message: `'${node.key}' is used by another node` };
  const type = node.type ?? 'JOB';
  if (!WORKFLOW_NODE_TYPES.includes(type)) {
    return { field: `${at}.type`, message: `must be one of ${WORKFLOW_NODE_TYPES.join(', ')}` };
  }
  if (type === 'JOB' && !isId(node.jobId))
    return { field: `${at}.jobId`, message: 'a JOB node needs a jobId' };
  if (type === 'WORKFLOW' && !isId(node.workflowId)) {
    return { field: `${at}.workflowId`, message: 'a WORKFLOW node needs a workflowId' };
  }
  if (type === 'DECISION') {
    if (typeof node.expression !== 'string' || node.expression.trim() === '') {
      return { field: `${at}.expression`, message: 'a DECISION node needs an expression' };
    }
    if (node.expression.length > WORKFLOW_LIMITS.expressionLength) {
      return {
        field: `${at}.expression`,
        message: `at most ${WORKFLOW_LIMITS.expressionLength} characters`,
      };
    }
  }
  return null;
}

function isId(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

/**
 * A cycle of the graph as the keys around it (the first repeated at the end), or null. Depth
 * first from each node in order, so the same graph always names the same cycle.
 */
export function findWorkflowCycle(
  nodes: readonly Pick<WorkflowNode, 'key'>[],
  edges: readonly Pick<WorkflowEdge, 'from' | 'to'>[],
): string[] | null {
  const next = new Map<string, string[]>(nodes.map((node) => [node.key, []]));
  for (const edge of edges) next.get(edge.from)?.push(edge.to);
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (key: string): string[] | null => {
    state.set(key, 'open');
    path.push(key);
    for (const to of next.get(key) ?? []) {
      const seen = state.get(to);
      if (seen === 'open') return [...path.slice(path.indexOf(to)), to];
      if (seen === undefined) {
        const found = visit(to);
        if (found !== null) return found;
      }
    }
    path.pop();
    state.set(key, 'done');
    return null;
  };
  for (const node of nodes) {
    if (state.has(node.key)) continue;
    const found = visit(node.key);
    if (found !== null) return found;
  }
  return null;
}

/** `${run.param}`, `${A.output}`, `${A.output.x.y}` (A a node key). */
const PLACEHOLDER = /\$\{(run\.param|[A-Za-z][A-Za-z0-9_-]{0,63}\.output(?:\.[A-Za-z0-9_$-]+)*)\}/g;

/**
 * A JOB node's param with its placeholders filled: `${run.param}` by the run's param,
 * `${A.output}` by node A's output (a string as is, anything else as JSON; '' when A has none),
 * `${A.output.x}` by a field of it. Text that is no placeholder stays as it is.
 */
export function fillWorkflowParam(
  template: string,
  run: { param: string | null },
  outputs: Readonly<Record<string, unknown>>,
): string {
  return template.replace(PLACEHOLDER, (_whole, path: string) => {
    if (path === 'run.param') return run.param ?? '';
    const [key, , ...fields] = path.split('.');
    let value: unknown = outputs[key!];
    for (const field of fields) {
      value =
        value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[field] : undefined;
    }
    if (value === undefined || value === null) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** The keys a param's placeholders name (`run` excluded): the editor warns of one that is no upstream node. */
export function workflowParamReferences(template: string): string[] {
  const keys = new Set<string>();
  for (const match of template.matchAll(PLACEHOLDER)) {
    const path = match[1]!;
    if (path !== 'run.param') keys.add(path.split('.')[0]!);
  }
  return [...keys];
}
