/**
 * The editor's graph: React Flow's node and edge state seeded from a definition, the edits the
 * canvas and the panels make (a key renamed follows along its edges), the selection, and the
 * problem last found, which the canvas marks in red.
 */
import type { WorkflowGraphProblem } from '@tickwheel/protocol';
import { addEdge as addFlowEdge, type Connection, useEdgesState, useNodesState } from '@xyflow/react';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { WorkflowEdge, WorkflowNode } from '../../api/workflows';
import {
  cycleEdgeIds,
  edgeId,
  type FlowEdge,
  type FlowNode,
  fromFlow,
  layOut,
  NODE_WIDTH,
  problemEdge,
  problemNodeKey,
  toFlowEdge,
  toFlowNodes,
} from './graph';

export type Selection = { kind: 'node'; key: string } | { kind: 'edge'; id: string } | undefined;

/** Why an edge cannot be added: it joins a node to itself, or the same edge is there already. */
export type EdgeRefusal = 'self' | 'duplicate';

export function useWorkflowGraph(
  initial: { nodes: WorkflowNode[]; edges: WorkflowEdge[] },
  onEdit: () => void,
) {
  const { t } = useTranslation('workflows');
  const conditionText = useCallback((condition: string) => t(`condition.${condition}`), [t]);
  const [start] = useState(() => ({
    nodes: toFlowNodes(initial.nodes, initial.edges),
    edges: initial.edges.map((edge) => toFlowEdge(edge, conditionText)),
  }));
  const [nodes, setNodes, onNodesChange] = useNodesState<FlowNode>(start.nodes);
  const [edges, setEdges, onEdgesChange] = useEdgesState<FlowEdge>(start.edges);
  const [selection, setSelection] = useState<Selection>();
  const [problem, setProblem] = useState<WorkflowGraphProblem>();

  const edited = useCallback(() => {
    setProblem(undefined);
    onEdit();
  }, [onEdit]);

  const addNode = useCallback(
    (def: WorkflowNode) => {
      setNodes((current) => {
        // Beside the rightmost node, so a new node never hides another.
        const right = current.reduce<FlowNode | undefined>(
          (best, node) => (best === undefined || node.position.x > best.position.x ? node : best),
          undefined,
        );
        const position =
          right === undefined
            ? { x: 0, y: 0 }
            : { x: right.position.x + NODE_WIDTH + 60, y: right.position.y };
        return [...current, { id: def.key, type: 'workflow', position, data: { def } }];
      });
      setSelection({ kind: 'node', key: def.key });
      edited();
    },
    [setNodes, edited],
  );

  /** Replaces the node `key` by `def`; a new key is carried to its edges. */
  const updateNode = useCallback(
    (key: string, def: WorkflowNode) => {
      setNodes((current) =>
        current.map((node) =>
          node.id === key ? { ...node, id: def.key, data: { ...node.data, def } } : node,
        ),
      );
      if (def.key !== key) {
        setEdges((current) =>
          current.map((edge) => {
            const old = edge.data!.def;
            if (old.from !== key && old.to !== key) return edge;
            const moved = {
              ...old,
              from: old.from === key ? def.key : old.from,
              to: old.to === key ? def.key : old.to,
            };
            return { ...toFlowEdge(moved, conditionText), selected: edge.selected };
          }),
        );
        setSelection({ kind: 'node', key: def.key });
      }
      edited();
    },
    [setNodes, setEdges, conditionText, edited],
  );

  const removeNode = useCallback(
    (key: string) => {
      setNodes((current) => current.filter((node) => node.id !== key));
      setEdges((current) => current.filter((edge) => edge.source !== key && edge.target !== key));
      setSelection(undefined);
      edited();
    },
    [setNodes, setEdges, edited],
  );

  const addEdge = useCallback(
    (def: WorkflowEdge): EdgeRefusal | null => {
      if (def.from === def.to) return 'self';
      if (edges.some((edge) => edge.id === edgeId(def))) return 'duplicate';
      setEdges((current) => addFlowEdge(toFlowEdge(def, conditionText), current));
      setSelection({ kind: 'edge', id: edgeId(def) });
      edited();
      return null;
    },
    [edges, setEdges, conditionText, edited],
  );

  /** A handle dragged onto another node: an edge followed when the source succeeds. */
  const connect = useCallback(
    (connection: Connection) =>
      addEdge({ from: connection.source, to: connection.target, condition: 'SUCCESS' }),
    [addEdge],
  );

  const updateEdge = useCallback(
    (id: string, def: WorkflowEdge): EdgeRefusal | null => {
      if (edgeId(def) !== id && edges.some((edge) => edge.id === edgeId(def))) return 'duplicate';
      setEdges((current) =>
        current.map((edge) =>
          edge.id === id ? { ...toFlowEdge(def, conditionText), selected: true } : edge,
        ),
      );
      setSelection({ kind: 'edge', id: edgeId(def) });
      edited();
      return null;
    },
    [edges, setEdges, conditionText, edited],
  );

  const removeEdge = useCallback(
    (id: string) => {
      setEdges((current) => current.filter((edge) => edge.id !== id));
      setSelection(undefined);
      edited();
    },
    [setEdges, edited],
  );

  /** Every node placed again by the layout, left to right along the edges. */
  const layOutAll = useCallback(() => {
    const { nodes: defs, edges: links } = fromFlow(nodes, edges);
    const positions = layOut(defs, links, true);
    setNodes((current) =>
      current.map((node) => ({ ...node, position: positions.get(node.id) ?? node.position })),
    );
    edited();
  }, [nodes, edges, setNodes, edited]);

  const definition = useCallback(() => fromFlow(nodes, edges), [nodes, edges]);

  // What the canvas draws: the problem in red, edge labels in the current language.
  const marked = useMemo(() => {
    const defs = fromFlow(nodes, edges);
    const badNodes = new Set<string>();
    let badEdges = new Set<string>();
    if (problem !== undefined) {
      const key = problemNodeKey(problem.field, defs.nodes);
      if (key !== undefined) badNodes.add(key);
      const edge = problemEdge(problem.field, defs.edges);
      if (edge !== undefined) badEdges.add(edgeId(edge));
      if (problem.cycle !== undefined) {
        badEdges = cycleEdgeIds(problem.cycle, defs.edges);
        for (const cycleKey of problem.cycle) badNodes.add(cycleKey);
      }
    }
    return {
      nodes:
        badNodes.size === 0
          ? nodes
          : nodes.map((node) =>
              badNodes.has(node.id) ? { ...node, data: { ...node.data, problem: true } } : node,
            ),
      edges: edges.map((edge) => ({
        ...toFlowEdge(edge.data!.def, conditionText, badEdges.has(edge.id)),
        selected: edge.selected,
      })),
    };
  }, [nodes, edges, problem, conditionText]);

  return {
    nodes,
    edges,
    shown: marked,
    onNodesChange,
    onEdgesChange,
    selection,
    setSelection,
    problem,
    setProblem,
    addNode,
    updateNode,
    removeNode,
    addEdge,
    connect,
    updateEdge,
    removeEdge,
    layOutAll,
    definition,
    edited,
  };
}

export type WorkflowGraph = ReturnType<typeof useWorkflowGraph>;
