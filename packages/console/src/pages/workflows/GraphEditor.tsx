/**
 * The workflow canvas: a toolbar to add a node (a job picked from the jobs the user may use, a
 * decision, another workflow), to add an edge without the mouse and to lay the graph out; the
 * React Flow canvas, where dragging from a node's right handle onto another node draws an edge;
 * and beside it the panel of the node or edge clicked.
 */
import {
  ApartmentOutlined,
  BranchesOutlined,
  DeploymentUnitOutlined,
  NodeIndexOutlined,
  PlusOutlined,
} from '@ant-design/icons';
import {
  Background,
  Controls,
  type EdgeChange,
  MiniMap,
  type NodeChange,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import type { WorkflowNodeType } from '@tickwheel/protocol';
import { Alert, Button, Card, Col, Flex, Row, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AddEdgeModal, AddNodeModal } from './GraphDialogs';
import { EdgePanel, NodePanel } from './GraphPanels';
import type { FlowEdge, FlowNode } from './graph';
import type { WorkflowGraph } from './useWorkflowGraph';
import { WorkflowNodeCard } from './WorkflowNodeCard';

const NODE_TYPES = { workflow: WorkflowNodeCard };
export const CANVAS_HEIGHT = 520;

interface GraphEditorProps {
  graph: WorkflowGraph;
  /** The workflow being edited (a WORKFLOW node may not run it). */
  workflowId?: number;
}

export function GraphEditor(props: GraphEditorProps) {
  return (
    <ReactFlowProvider>
      <GraphCanvas {...props} />
    </ReactFlowProvider>
  );
}

function GraphCanvas({ graph, workflowId }: GraphEditorProps) {
  const { t } = useTranslation('workflows');
  const flow = useReactFlow<FlowNode, FlowEdge>();
  const [adding, setAdding] = useState<WorkflowNodeType>();
  const [addingEdge, setAddingEdge] = useState(false);
  const { selection } = graph;

  // A node added or the graph laid out: bring every node into view.
  const count = graph.nodes.length;
  useEffect(() => {
    if (count === 0) return;
    const timer = setTimeout(() => void flow.fitView({ padding: 0.2, maxZoom: 1.2, duration: 200 }), 50);
    return () => clearTimeout(timer);
  }, [count, flow]);

  // The panel steps back while a dialog adds something: the dialog's fields are the ones to fill.
  const startAdding = (type: WorkflowNodeType) => {
    graph.setSelection(undefined);
    setAdding(type);
  };

  const onNodesChange = (changes: NodeChange<FlowNode>[]) => {
    graph.onNodesChange(changes);
    if (changes.some((change) => change.type === 'remove')) graph.setSelection(undefined);
    if (
      changes.some(
        (change) => change.type === 'remove' || (change.type === 'position' && change.dragging === false),
      )
    ) {
      graph.edited();
    }
  };
  const onEdgesChange = (changes: EdgeChange<FlowEdge>[]) => {
    graph.onEdgesChange(changes);
    if (changes.some((change) => change.type === 'remove')) {
      graph.setSelection(undefined);
      graph.edited();
    }
  };

  const selectedNode =
    selection?.kind === 'node' ? graph.nodes.find((node) => node.id === selection.key) : undefined;
  const selectedEdge =
    selection?.kind === 'edge' ? graph.edges.find((edge) => edge.id === selection.id) : undefined;

  return (
    <>
      <Flex gap="small" wrap style={{ marginBottom: 8 }} data-testid="graph-toolbar">
        <Button icon={<PlusOutlined />} onClick={() => startAdding('JOB')}>
          {t('editor.addJob')}
        </Button>
        <Button icon={<BranchesOutlined />} onClick={() => startAdding('DECISION')}>
          {t('editor.addDecision')}
        </Button>
        <Button icon={<DeploymentUnitOutlined />} onClick={() => startAdding('WORKFLOW')}>
          {t('editor.addWorkflow')}
        </Button>
        <Button
          icon={<NodeIndexOutlined />}
          disabled={count < 2}
          onClick={() => {
            graph.setSelection(undefined);
            setAddingEdge(true);
          }}
        >
          {t('editor.addEdge')}
        </Button>
        <Button
          icon={<ApartmentOutlined />}
          disabled={count === 0}
          onClick={() => {
            graph.layOutAll();
            setTimeout(() => void flow.fitView({ padding: 0.2, maxZoom: 1.2, duration: 200 }), 50);
          }}
        >
          {t('editor.layOut')}
        </Button>
      </Flex>
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={16}>
          <div
            data-testid="workflow-canvas"
            aria-label={t('editor.canvasLabel')}
            role="application"
            style={{
              height: CANVAS_HEIGHT,
              border: '1px solid #f0f0f0',
              borderRadius: 8,
              background: '#fff',
            }}
          >
            <ReactFlow<FlowNode, FlowEdge>
              nodes={graph.shown.nodes}
              edges={graph.shown.edges}
              nodeTypes={NODE_TYPES}
              onNodesChange={onNodesChange}
              onEdgesChange={onEdgesChange}
              onConnect={(connection) => void graph.connect(connection)}
              onNodeClick={(_, node) => graph.setSelection({ kind: 'node', key: node.id })}
              onEdgeClick={(_, edge) => graph.setSelection({ kind: 'edge', id: edge.id })}
              onPaneClick={() => graph.setSelection(undefined)}
              deleteKeyCode={['Backspace', 'Delete']}
              fitView
              fitViewOptions={{ padding: 0.2, maxZoom: 1.2 }}
              proOptions={{ hideAttribution: true }}
            >
              <Background gap={16} />
              <Controls showInteractive={false} />
              <MiniMap pannable zoomable style={{ height: 80, width: 120 }} />
            </ReactFlow>
          </div>
        </Col>
        <Col xs={24} lg={8}>
          <Card size="small" title={panelTitle(t, selectedNode, selectedEdge)} data-testid="graph-panel">
            {selectedNode !== undefined ? (
              <NodePanel
                key={selectedNode.id}
                node={selectedNode.data.def}
                graph={graph}
                workflowId={workflowId}
              />
            ) : selectedEdge !== undefined ? (
              <EdgePanel
                key={selectedEdge.id}
                id={selectedEdge.id}
                edge={selectedEdge.data!.def}
                graph={graph}
              />
            ) : (
              <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
                {count === 0 ? t('editor.emptyHelp') : t('editor.help')}
              </Typography.Paragraph>
            )}
          </Card>
        </Col>
      </Row>
      {graph.problem !== undefined && (
        <Alert
          style={{ marginTop: 8 }}
          type="error"
          showIcon
          role="alert"
          data-testid="graph-problem"
          title={t('editor.problemTitle')}
          description={`${graph.problem.field}: ${graph.problem.message}`}
        />
      )}
      {adding !== undefined && (
        <AddNodeModal
          type={adding}
          graph={graph}
          workflowId={workflowId}
          onClose={() => setAdding(undefined)}
        />
      )}
      {addingEdge && <AddEdgeModal graph={graph} onClose={() => setAddingEdge(false)} />}
    </>
  );
}

function panelTitle(
  t: (key: string, options?: Record<string, unknown>) => string,
  node: FlowNode | undefined,
  edge: FlowEdge | undefined,
): string {
  if (node !== undefined) return t('panel.nodeTitle', { key: node.id });
  if (edge !== undefined) return t('panel.edgeTitle', { from: edge.source, to: edge.target });
  return t('panel.title');
}
