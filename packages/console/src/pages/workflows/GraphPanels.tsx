/**
 * The panels beside the canvas. A node's: its key (applied when the field is left, as it renames
 * the node's edges too), what it runs, the param override with its placeholders, timeout and
 * retry overrides, continue on failure, disabled. An edge's: its condition, and from a decision
 * the value it is followed on. Changes apply to the canvas as they are made.
 */
import { DeleteOutlined } from '@ant-design/icons';
import { WORKFLOW_EDGE_CONDITIONS, WORKFLOW_LIMITS, workflowParamReferences } from '@tickwheel/protocol';
import { Alert, Button, Form, Input, InputNumber, Select, Switch, Typography } from 'antd';
import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { WorkflowEdge, WorkflowNode } from '../../api/workflows';
import { keyRules } from './GraphDialogs';
import { edgeCondition, nodeType, upstreamKeys } from './graph';
import { JobPicker, WorkflowPicker } from './pickers';
import { placeholder } from './placeholders';
import type { WorkflowGraph } from './useWorkflowGraph';

interface NodeFields {
  key: string;
  jobId?: number;
  expression?: string;
  workflowId?: number;
  param?: string;
  timeoutSeconds?: number | null;
  retryCount?: number | null;
  continueOnFailure: boolean;
  disabled: boolean;
}

function nodeFields(node: WorkflowNode): NodeFields {
  return {
    key: node.key,
    jobId: node.jobId,
    expression: node.expression,
    workflowId: node.workflowId,
    param: node.param ?? '',
    timeoutSeconds: node.timeoutSeconds ?? null,
    retryCount: node.retryCount ?? null,
    continueOnFailure: node.continueOnFailure ?? false,
    disabled: node.disabled ?? false,
  };
}

/** The node the fields describe; what is left at the job's own value is left out. */
function nodeOf(node: WorkflowNode, fields: NodeFields, key: string): WorkflowNode {
  const type = nodeType(node);
  const def: WorkflowNode = {
    key,
    type,
    ...(node.position === undefined ? {} : { position: node.position }),
  };
  if (type === 'JOB') {
    def.jobId = fields.jobId;
    if (fields.param !== undefined && fields.param !== '') def.param = fields.param;
    if (fields.timeoutSeconds !== null && fields.timeoutSeconds !== undefined)
      def.timeoutSeconds = fields.timeoutSeconds;
    if (fields.retryCount !== null && fields.retryCount !== undefined) def.retryCount = fields.retryCount;
  }
  if (type === 'DECISION') def.expression = fields.expression ?? '';
  if (type === 'WORKFLOW') def.workflowId = fields.workflowId;
  if (fields.continueOnFailure) def.continueOnFailure = true;
  if (fields.disabled) def.disabled = true;
  return def;
}

export function NodePanel({
  node,
  graph,
  workflowId,
}: {
  node: WorkflowNode;
  graph: WorkflowGraph;
  workflowId: number | undefined;
}) {
  const { t } = useTranslation('workflows');
  const [form] = Form.useForm<NodeFields>();
  const type = nodeType(node);
  const others = graph.nodes.map((other) => other.id).filter((key) => key !== node.key);
  const param = Form.useWatch('param', form) ?? node.param ?? '';
  const upstream = upstreamKeys(
    node.key,
    graph.edges.map((edge) => edge.data!.def),
  );
  const strangers = workflowParamReferences(param).filter((key) => !upstream.has(key));

  const applyKey = async () => {
    const key = (form.getFieldValue('key') as string).trim();
    if (key === node.key) return;
    try {
      await form.validateFields(['key']);
    } catch {
      return;
    }
    graph.updateNode(node.key, nodeOf(node, form.getFieldsValue(true) as NodeFields, key));
  };

  return (
    <Form<NodeFields>
      // Field ids of their own: the add-node dialog has the same fields while this panel is shown.
      name="node-panel"
      form={form}
      layout="vertical"
      size="small"
      initialValues={nodeFields(node)}
      data-testid="node-panel"
      onValuesChange={(changed, all) => {
        if ('key' in changed) return;
        graph.updateNode(node.key, nodeOf(node, all, node.key));
      }}
    >
      <Form.Item
        name="key"
        label={t('node.key')}
        extra={t('node.keyHint', { example: placeholder('key.output') })}
        rules={keyRules(t, others)}
      >
        <Input
          autoComplete="off"
          spellCheck={false}
          onBlur={() => void applyKey()}
          onPressEnter={() => void applyKey()}
        />
      </Form.Item>
      {type === 'JOB' && (
        <>
          <Form.Item
            name="jobId"
            label={t('node.job')}
            rules={[{ required: true, message: t('node.jobRequired') }]}
          >
            <JobPicker />
          </Form.Item>
          <Form.Item
            name="param"
            label={t('node.param')}
            extra={
              <Trans
                t={t}
                i18nKey="node.paramHint"
                values={{
                  runParam: placeholder('run.param'),
                  output: placeholder('A.output'),
                  field: placeholder('A.output.x'),
                }}
                components={{ code: <Typography.Text code /> }}
              />
            }
            rules={[
              { max: WORKFLOW_LIMITS.paramBytes, message: t('tooLong', { max: WORKFLOW_LIMITS.paramBytes }) },
            ]}
          >
            <Input.TextArea
              autoSize={{ minRows: 1, maxRows: 6 }}
              spellCheck={false}
              placeholder={t('node.paramPlaceholder')}
              style={{ fontFamily: 'monospace' }}
            />
          </Form.Item>
          {strangers.length > 0 && (
            <Alert
              type="warning"
              showIcon
              style={{ marginBottom: 12 }}
              title={t('node.notUpstream', { keys: strangers.join(', '), count: strangers.length })}
            />
          )}
          <Form.Item name="timeoutSeconds" label={t('node.timeoutSeconds')} extra={t('node.overrideHint')}>
            <InputNumber min={0} max={2_147_483_647} precision={0} style={{ width: '100%' }} />
          </Form.Item>
          <Form.Item name="retryCount" label={t('node.retryCount')} extra={t('node.overrideHint')}>
            <InputNumber min={0} max={1000} precision={0} style={{ width: '100%' }} />
          </Form.Item>
        </>
      )}
      {type === 'DECISION' && (
        <Form.Item
          name="expression"
          label={t('node.expression')}
          extra={t('node.expressionHint')}
          rules={[{ required: true, whitespace: true, message: t('node.expressionRequired') }]}
        >
          <Input.TextArea
            autoSize={{ minRows: 2, maxRows: 6 }}
            spellCheck={false}
            style={{ fontFamily: 'monospace' }}
          />
        </Form.Item>
      )}
      {type === 'WORKFLOW' && (
        <Form.Item
          name="workflowId"
          label={t('node.workflow')}
          rules={[{ required: true, message: t('node.workflowRequired') }]}
        >
          <WorkflowPicker excludeId={workflowId} />
        </Form.Item>
      )}
      <Form.Item
        name="continueOnFailure"
        label={t('node.continueOnFailure')}
        extra={t('node.continueOnFailureHint')}
        valuePropName="checked"
      >
        <Switch />
      </Form.Item>
      <Form.Item
        name="disabled"
        label={t('node.disabled')}
        extra={t('node.disabledHint')}
        valuePropName="checked"
      >
        <Switch />
      </Form.Item>
      <Button danger icon={<DeleteOutlined />} onClick={() => graph.removeNode(node.key)}>
        {t('node.remove')}
      </Button>
    </Form>
  );
}

interface EdgeFields {
  condition: string;
  value: string;
}

export function EdgePanel({ id, edge, graph }: { id: string; edge: WorkflowEdge; graph: WorkflowGraph }) {
  const { t } = useTranslation('workflows');
  const [form] = Form.useForm<EdgeFields>();
  const [refusal, setRefusal] = useState<string>();
  const source = graph.nodes.find((node) => node.id === edge.from);
  const fromDecision = source !== undefined && nodeType(source.data.def) === 'DECISION';

  const apply = (fields: EdgeFields) => {
    const value = fields.value.trim();
    const def: WorkflowEdge = {
      from: edge.from,
      to: edge.to,
      condition: fields.condition as WorkflowEdge['condition'],
      ...(fromDecision && value !== '' ? { value } : {}),
    };
    const refused = graph.updateEdge(id, def);
    setRefusal(refused === null ? undefined : t(`edge.refused.${refused}`));
  };

  return (
    <Form<EdgeFields>
      name="edge-panel"
      form={form}
      layout="vertical"
      size="small"
      data-testid="edge-panel"
      initialValues={{ condition: edgeCondition(edge), value: edge.value ?? '' }}
      onValuesChange={(changed, all) => {
        // A value is applied once typed out (on leaving the field), not at every key.
        if (!('value' in changed)) apply(all);
      }}
    >
      <Form.Item name="condition" label={t('edge.condition')} extra={t('edge.conditionHint')}>
        <Select
          options={WORKFLOW_EDGE_CONDITIONS.map((value) => ({ value, label: t(`condition.${value}`) }))}
        />
      </Form.Item>
      {fromDecision && (
        <Form.Item name="value" label={t('edge.value')} extra={t('edge.valueHint')}>
          <Input
            autoComplete="off"
            spellCheck={false}
            onBlur={() => apply(form.getFieldsValue(true) as EdgeFields)}
            onPressEnter={() => apply(form.getFieldsValue(true) as EdgeFields)}
          />
        </Form.Item>
      )}
      {refusal !== undefined && <Alert type="error" showIcon style={{ marginBottom: 12 }} title={refusal} />}
      <Button danger icon={<DeleteOutlined />} onClick={() => graph.removeEdge(id)}>
        {t('edge.remove')}
      </Button>
    </Form>
  );
}
