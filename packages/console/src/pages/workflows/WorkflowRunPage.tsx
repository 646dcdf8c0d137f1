/**
 * One workflow run: the graph as it was when the run started, each node coloured by its status
 * and asked for again every second while the run goes on. Clicking a node shows its status,
 * times, output or decision, and its fire records (each opens the fire's page with its log);
 * a failed node can be retried or marked succeeded or skipped, and a running run stopped.
 */
import { StopOutlined } from '@ant-design/icons';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Background, Controls, ReactFlow, ReactFlowProvider } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import {
  App as AntApp,
  Badge,
  Button,
  Card,
  Col,
  Descriptions,
  Empty,
  Flex,
  Popconfirm,
  Result,
  Row,
  Space,
  Typography,
} from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router-dom';
import { ApiError, call, client } from '../../api/client';
import type { WorkflowRun, WorkflowRunNode } from '../../api/workflows';
import { ApiErrorAlert, errorText } from '../../components/ApiErrorAlert';
import { PageLoading } from '../../components/PageLoading';
import { PageTitle } from '../../components/PageTitle';
import { Time } from '../../components/Time';
import { idOf } from './filters';
import { CANVAS_HEIGHT } from './GraphEditor';
import { type FlowEdge, type FlowNode, toFlowEdge, toFlowNodes } from './graph';
import { isRunGoing, useWorkflowRun, WORKFLOW_RUNS } from './queries';
import { RunStatusTag } from './RunStatusTag';
import { runDuration } from './run-status';
import { WorkflowNodeCard } from './WorkflowNodeCard';

const NODE_TYPES = { workflow: WorkflowNodeCard };

export default function WorkflowRunPage() {
  const { t } = useTranslation('workflows');
  const params = useParams();
  const id = idOf(params.id);
  const run = useWorkflowRun(id);
  const [selected, setSelected] = useState<string>();

  if (id === undefined) return <Result status="404" title="404" subTitle={t('common:notFound')} />;
  if (run.isError && run.data === undefined) {
    return (
      <>
        <PageTitle title={t('run.title', { id })} />
        {run.error instanceof ApiError && run.error.status === 404 ? (
          <Result status="404" title="404" subTitle={t('run.notFound', { id })} />
        ) : (
          <ApiErrorAlert error={run.error} onRetry={() => void run.refetch()} />
        )}
      </>
    );
  }
  if (run.data === undefined) return <PageLoading />;
  const data = run.data;
  const node = data.nodes.find((candidate) => candidate.key === selected);

  return (
    <>
      <PageTitle
        title={
          <Space>
            {t('run.titleOf', { id: data.id, name: data.workflowName })}
            <RunStatusTag status={data.status} />
          </Space>
        }
        extra={<RunActions run={data} />}
      />
      {run.isError && (
        <div style={{ marginBottom: 16 }}>
          <ApiErrorAlert error={run.error} onRetry={() => void run.refetch()} />
        </div>
      )}
      <Descriptions
        size="small"
        bordered
        column={{ xs: 1, sm: 2, lg: 3 }}
        style={{ marginBottom: 16 }}
        data-testid="run-summary"
        items={[
          {
            key: 'workflow',
            label: t('run.workflow'),
            children: <Link to={`/workflows/${data.workflowId}`}>{data.workflowName}</Link>,
          },
          {
            key: 'trigger',
            label: t('runs.columns.trigger'),
            children: t(`triggerType.${data.triggerType}`, { defaultValue: data.triggerType }),
          },
          {
            key: 'param',
            label: t('runs.columns.param'),
            children:
              data.param === null || data.param === '' ? (
                '—'
              ) : (
                <Typography.Text code>{data.param}</Typography.Text>
              ),
          },
          {
            key: 'scheduled',
            label: t('runs.columns.scheduledAt'),
            children: <Time value={data.scheduledAt} />,
          },
          { key: 'started', label: t('run.startedAt'), children: <Time value={data.startedAt} /> },
          { key: 'finished', label: t('run.finishedAt'), children: <Time value={data.finishedAt} /> },
          { key: 'duration', label: t('runs.columns.duration'), children: runDuration(data) },
          ...(data.parentRunId === null
            ? []
            : [
                {
                  key: 'parent',
                  label: t('run.parent'),
                  children: (
                    <Link to={`/workflow-runs/${data.parentRunId}`}>
                      {t('run.parentLink', { id: data.parentRunId, key: data.parentNodeKey ?? '' })}
                    </Link>
                  ),
                },
              ]),
        ]}
      />
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={16}>
          <Card
            size="small"
            title={t('run.graph')}
            extra={
              isRunGoing(data) ? (
                <Badge status="processing" text={t('run.live')} data-testid="run-live" />
              ) : undefined
            }
          >
            <RunGraph run={data} selected={selected} onSelect={setSelected} />
          </Card>
        </Col>
        <Col xs={24} lg={8}>
          <Card
            size="small"
            title={node === undefined ? t('run.nodeTitle') : t('panel.nodeTitle', { key: node.key })}
            data-testid="run-node-panel"
          >
            {node === undefined ? (
              <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
                {t('run.pickNode')}
              </Typography.Paragraph>
            ) : (
              <RunNodeDetail run={data} node={node} />
            )}
          </Card>
        </Col>
      </Row>
    </>
  );
}

function RunGraph({
  run,
  selected,
  onSelect,
}: {
  run: WorkflowRun;
  selected: string | undefined;
  onSelect: (key: string | undefined) => void;
}) {
  const { t } = useTranslation('workflows');
  const { definition } = run;
  // The layout depends on the definition only, which a run never changes.
  const laidOut = useMemo(() => toFlowNodes(definition.nodes, definition.edges), [definition]);
  const statuses = new Map(run.nodes.map((node) => [node.key, node.status]));
  const nodes: FlowNode[] = laidOut.map((node) => ({
    ...node,
    selected: node.id === selected,
    data: { ...node.data, status: statuses.get(node.id) ?? 'waiting' },
  }));
  const edges: FlowEdge[] = definition.edges.map((edge) => toFlowEdge(edge, (c) => t(`condition.${c}`)));
  return (
    <div data-testid="run-graph" style={{ height: CANVAS_HEIGHT }}>
      <ReactFlowProvider>
        <ReactFlow<FlowNode, FlowEdge>
          nodes={nodes}
          edges={edges}
          nodeTypes={NODE_TYPES}
          nodesDraggable={false}
          nodesConnectable={false}
          edgesFocusable={false}
          onNodeClick={(_, node) => onSelect(node.id)}
          onPaneClick={() => onSelect(undefined)}
          fitView
          fitViewOptions={{ padding: 0.2, maxZoom: 1.2 }}
          proOptions={{ hideAttribution: true }}
        >
          <Background gap={16} />
          <Controls showInteractive={false} />
        </ReactFlow>
      </ReactFlowProvider>
    </div>
  );
}

function useRunAction(run: WorkflowRun) {
  const { t } = useTranslation('workflows');
  const { message } = AntApp.useApp();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (
      action:
        | { kind: 'stop' }
        | { kind: 'retry'; key: string }
        | { kind: 'mark'; key: string; status: 'succeeded' | 'skipped' },
    ) => {
      if (action.kind === 'stop') {
        return call(client.POST('/api/v1/workflow-runs/{id}/stop', { params: { path: { id: run.id } } }));
      }
      const path = { id: run.id, key: action.key };
      return action.kind === 'retry'
        ? call(client.POST('/api/v1/workflow-runs/{id}/nodes/{key}/retry', { params: { path } }))
        : call(
            client.POST('/api/v1/workflow-runs/{id}/nodes/{key}/mark', {
              params: { path },
              body: { status: action.status },
            }),
          );
    },
    onSuccess: (updated) => {
      queryClient.setQueryData([...WORKFLOW_RUNS, 'one', updated.id], updated);
      void queryClient.invalidateQueries({ queryKey: WORKFLOW_RUNS });
      void message.success(t('run.done'));
    },
    onError: (err) => void message.error(errorText(err, t), 8),
  });
}

function RunActions({ run }: { run: WorkflowRun }) {
  const { t } = useTranslation('workflows');
  const action = useRunAction(run);
  return (
    <>
      <Link to={`/workflow-runs?workflowId=${run.workflowId}`}>
        <Button>{t('actions.runs')}</Button>
      </Link>
      {isRunGoing(run) && (
        <Popconfirm
          title={t('run.stopConfirm')}
          okText={t('run.stop')}
          cancelText={t('common:actions.cancel')}
          okButtonProps={{ danger: true }}
          onConfirm={() => action.mutateAsync({ kind: 'stop' }).catch(() => undefined)}
        >
          <Button danger icon={<StopOutlined />} loading={action.isPending}>
            {t('run.stop')}
          </Button>
        </Popconfirm>
      )}
    </>
  );
}

/** A node's output as people read it: text as it is, anything else as indented JSON. */
function outputText(output: unknown): string {
  return typeof output === 'string' ? output : JSON.stringify(output, null, 2);
}

function RunNodeDetail({ run, node }: { run: WorkflowRun; node: WorkflowRunNode }) {
  const { t } = useTranslation('workflows');
  const action = useRunAction(run);
  const failed = node.status === 'failed';
  return (
    <Flex vertical gap="small" data-testid={`run-node-${node.key}`}>
      <Descriptions
        size="small"
        column={1}
        items={[
          { key: 'status', label: t('run.status'), children: <RunStatusTag status={node.status} /> },
          {
            key: 'type',
            label: t('run.type'),
            children: t(`nodeType.${node.type}`, { defaultValue: node.type }),
          },
          { key: 'started', label: t('run.startedAt'), children: <Time value={node.startedAt} /> },
          { key: 'finished', label: t('run.finishedAt'), children: <Time value={node.finishedAt} /> },
          ...(node.decision === undefined || node.decision === null
            ? []
            : [
                {
                  key: 'decision',
                  label: t('run.decision'),
                  children: <Typography.Text code>{node.decision}</Typography.Text>,
                },
              ]),
          ...(node.message === undefined || node.message === null || node.message === ''
            ? []
            : [{ key: 'message', label: t('run.message'), children: node.message }]),
          ...(node.markedBy === undefined || node.markedBy === null
            ? []
            : [{ key: 'marked', label: t('run.markedBy'), children: node.markedBy }]),
          ...(node.childRunId === undefined || node.childRunId === null
            ? []
            : [
                {
                  key: 'child',
                  label: t('run.childRun'),
                  children: <Link to={`/workflow-runs/${node.childRunId}`}>#{node.childRunId}</Link>,
                },
              ]),
          {
            key: 'fires',
            label: t('run.fires'),
            children:
              node.fireIds.length === 0 ? (
                '—'
              ) : (
                <Flex vertical gap={2} data-testid="run-node-fires">
                  {node.fireIds.map((fireId) => (
                    <Link key={fireId} to={`/fires/${fireId}`}>
                      {t('run.fireLink', { id: fireId })}
                    </Link>
                  ))}
                </Flex>
              ),
          },
        ]}
      />
      <div>
        <Typography.Text strong>{t('run.output')}</Typography.Text>
        {node.output === undefined || node.output === null ? (
          <Empty
            image={Empty.PRESENTED_IMAGE_SIMPLE}
            description={t('run.noOutput')}
            style={{ margin: '8px 0' }}
          />
        ) : (
          <pre
            data-testid="run-node-output"
            style={{
              margin: '4px 0 0',
              padding: 8,
              background: '#fafafa',
              border: '1px solid #f0f0f0',
              borderRadius: 6,
              whiteSpace: 'pre-wrap',
              wordBreak: 'break-word',
              maxHeight: 240,
              overflow: 'auto',
            }}
          >
            {outputText(node.output)}
          </pre>
        )}
      </div>
      {failed && (
        <Flex gap="small" wrap>
          <Button onClick={() => action.mutate({ kind: 'retry', key: node.key })} loading={action.isPending}>
            {t('run.retry')}
          </Button>
          <Popconfirm
            title={t('run.markConfirm', { key: node.key, status: t('status.succeeded') })}
            okText={t('common:actions.confirm')}
            cancelText={t('common:actions.cancel')}
            onConfirm={() =>
              action.mutateAsync({ kind: 'mark', key: node.key, status: 'succeeded' }).catch(() => undefined)
            }
          >
            <Button>{t('run.markSucceeded')}</Button>
          </Popconfirm>
          <Popconfirm
            title={t('run.markConfirm', { key: node.key, status: t('status.skipped') })}
            okText={t('common:actions.confirm')}
            cancelText={t('common:actions.cancel')}
            onConfirm={() =>
              action.mutateAsync({ kind: 'mark', key: node.key, status: 'skipped' }).catch(() => undefined)
            }
          >
            <Button>{t('run.markSkipped')}</Button>
          </Popconfirm>
        </Flex>
      )}
    </Flex>
  );
}
