/**
 * A workflow's definition (nodes and edges as the API has them) as React Flow's nodes and edges,
 * and back. Nodes saved without a position are laid out left to right by dagre, the rest stay
 * where the author put them.
 */
import { Graph, layout } from '@dagrejs/dagre';
import type { WorkflowEdgeCondition, WorkflowNodeType } from '@tickwheel/protocol';
import { type Edge, MarkerType, type Node } from '@xyflow/react';
import type { WorkflowEdge, WorkflowNode } from '../../api/workflows';

/** The size a node card is drawn at (WorkflowNodeCard), which the layout spaces nodes by. */
export const NODE_WIDTH = 180;
export const NODE_HEIGHT = 64;

/** What a node card shows: the definition, and in a run view the node's status. */
export interface NodeCardData extends Record<string, unknown> {
  def: WorkflowNode;
  /** The node's state in the run shown; absent in the editor. */
  status?: string;
  /** The node is part of the problem the editor shows (a cycle, a missing job). */
  problem?: boolean;
}

export type FlowNode = Node<NodeCardData, 'workflow'>;
export type FlowEdge = Edge<{ def: WorkflowEdge; problem?: boolean }>;

export function nodeType(node: WorkflowNode): WorkflowNodeType {
  return node.type ?? 'JOB';
}

export function edgeCondition(edge: WorkflowEdge): WorkflowEdgeCondition {
  return edge.condition ?? 'SUCCESS';
}

/** A stable id for an edge: the same two nodes may be joined once per decision value. */
export function edgeId(edge: WorkflowEdge): string {
  return `${edge.from}->${edge.to}${edge.value === undefined ? '' : `=${edge.value}`}`;
}

const CONDITION_COLORS: Record<WorkflowEdgeCondition, string> = {
  SUCCESS: '#52c41a',
  FAILURE: '#ff4d4f',
  ALWAYS: '#8c8c8c',
};

/** The words on an edge: its decision value, else its condition unless it is the default. */
export function edgeLabel(edge: WorkflowEdge, conditionText: (condition: string) => string): string {
  if (edge.value !== undefined) return `= ${edge.value}`;
  const condition = edgeCondition(edge);
  return condition === 'SUCCESS' ? '' : conditionText(condition);
}

export function toFlowEdge(
  edge: WorkflowEdge,
  conditionText: (condition: string) => string,
  problem = false,
): FlowEdge {
  const color = problem
    ? '#ff4d4f'
    : edge.value !== undefined
      ? '#722ed1'
      : CONDITION_COLORS[edgeCondition(edge)];
  const label = edgeLabel(edge, conditionText);
  return {
    id: edgeId(edge),
    source: edge.from,
    target: edge.to,
    data: { def: edge, problem },
    ...(label === '' ? {} : { label }),
    labelBgPadding: [4, 2],
    style: {
      stroke: color,
      strokeWidth: problem ? 3 : 2,
      strokeDasharray: edgeCondition(edge) === 'ALWAYS' && edge.value === undefined ? '6 4' : undefined,
    },
    markerEnd: { type: MarkerType.ArrowClosed, color },
  };
}

/** Positions for the nodes that have none, below or beside those that do. */
export function layOut(nodes: readonly WorkflowNode[], edges: readonly WorkflowEdge[], all = false) {
  const graph = new Graph();
  graph.setGraph({ rankdir: 'LR', nodesep: 40, ranksep: 80, marginx: 20, marginy: 20 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) graph.setNode(node.key, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const edge of edges) graph.setEdge(edge.from, edge.to);
  layout(graph);
  const placed = all ? [] : nodes.filter((node) => node.position !== undefined);
  // Laid-out nodes go below the ones placed by hand, so they never land on top of them.
  const offsetY =
    placed.length === 0 ? 0 : Math.max(...placed.map((node) => node.position!.y)) + NODE_HEIGHT + 60;
  return new Map(
    nodes.map((node) => {
      if (!all && node.position !== undefined) return [node.key, node.position];
      const { x, y } = graph.node(node.key);
      return [node.key, { x: Math.round(x - NODE_WIDTH / 2), y: Math.round(y - NODE_HEIGHT / 2 + offsetY) }];
    }),
  );
}

export function toFlowNodes(nodes: readonly WorkflowNode[], edges: readonly WorkflowEdge[]): FlowNode[] {
  const positions = layOut(nodes, edges);
  return nodes.map((def) => ({
    id: def.key,
    type: 'workflow',
    position: positions.get(def.key) ?? { x: 0, y: 0 },
    data: { def },
  }));
}

/** The definition the canvas shows, each node with the position it is drawn at. */
export function fromFlow(
  nodes: readonly FlowNode[],
  edges: readonly FlowEdge[],
): { nodes: WorkflowNode[]; edges: WorkflowEdge[] } {
  return {
    nodes: nodes.map((node) => ({
      ...node.data.def,
      position: { x: Math.round(node.position.x), y: Math.round(node.position.y) },
    })),
    edges: edges.map((edge) => edge.data!.def),
  };
}

/** The node key a problem's field names (`nodes[2].jobId` → the third node's key). */
export function problemNodeKey(field: string, nodes: readonly WorkflowNode[]): string | undefined {
  const match = /^nodes\[(\d+)\]/.exec(field);
  return match === null ? undefined : nodes[Number(match[1])]?.key;
}

/** The edge a problem's field names (`edges[3].to` → the fourth edge). */
export function problemEdge(field: string, edges: readonly WorkflowEdge[]): WorkflowEdge | undefined {
  const match = /^edges\[(\d+)\]/.exec(field);
  return match === null ? undefined : edges[Number(match[1])];
}

/** The edges around a cycle named by its keys (`['A', 'B', 'A']`). */
export function cycleEdgeIds(cycle: readonly string[], edges: readonly WorkflowEdge[]): Set<string> {
  const ids = new Set<string>();
  for (let i = 0; i + 1 < cycle.length; i++) {
    for (const edge of edges) {
      if (edge.from === cycle[i] && edge.to === cycle[i + 1]) ids.add(edgeId(edge));
    }
  }
  return ids;
}

/** A key no node has yet: the type's letter and the first free number (J1, J2, D1, W1). */
export function freeKey(type: WorkflowNodeType, nodes: readonly { key: string }[]): string {
  const prefix = type === 'JOB' ? 'J' : type === 'DECISION' ? 'D' : 'W';
  const taken = new Set(nodes.map((node) => node.key));
  for (let n = 1; ; n++) if (!taken.has(`${prefix}${n}`)) return `${prefix}${n}`;
}

/** The keys from which `key` can be reached: a param may use only their outputs. */
export function upstreamKeys(key: string, edges: readonly WorkflowEdge[]): Set<string> {
  const into = new Map<string, string[]>();
  for (const edge of edges) into.set(edge.to, [...(into.get(edge.to) ?? []), edge.from]);
  const seen = new Set<string>();
  const stack = [...(into.get(key) ?? [])];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(into.get(next) ?? []));
  }
  return seen;
}
