/**
 * The toolbar's dialogs: adding a node (its key and what it runs) and adding an edge by naming
 * its two ends, the keyboard's way of doing what dragging a handle does.
 */
import {
  WORKFLOW_EDGE_CONDITIONS,
  WORKFLOW_LIMITS,
  type WorkflowEdgeCondition,
  type WorkflowNodeType,
} from '@tickwheel/protocol';
import { Form, type FormRule, Input, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import type { WorkflowEdge, WorkflowNode } from '../../api/workflows';
import { FormModal } from '../../components/FormModal';
import { freeKey, nodeType } from './graph';
import { JobPicker, WorkflowPicker } from './pickers';
import { placeholder } from './placeholders';
import type { WorkflowGraph } from './useWorkflowGraph';

interface NodeValues {
  key: string;
  jobId?: number;
  expression?: string;
  workflowId?: number;
}

/** The rules of a node key: the protocol's pattern, unique among the other nodes. */
export function keyRules(
  t: (key: string, options?: Record<string, unknown>) => string,
  otherKeys: readonly string[],
): FormRule[] {
  return [
    { required: true, message: t('node.keyRequired') },
    { pattern: WORKFLOW_LIMITS.keyPattern, message: t('node.keyPattern') },
    {
      validator: (_, value: string) =>
        otherKeys.includes(value)
          ? Promise.reject(new Error(t('node.keyTaken', { key: value })))
          : Promise.resolve(),
    },
  ];
}

export function AddNodeModal({
  type,
  graph,
  workflowId,
  onClose,
}: {
  type: WorkflowNodeType;
  graph: WorkflowGraph;
  workflowId: number | undefined;
  onClose: () => void;
}) {
  const { t } = useTranslation('workflows');
  const [form] = Form.useForm<NodeValues>();
  const keys = graph.nodes.map((node) => node.id);
  const add = (values: NodeValues) => {
    const def: WorkflowNode = { key: values.key.trim(), type };
    if (type === 'JOB') def.jobId = values.jobId;
    if (type === 'DECISION') def.expression = values.expression?.trim();
    if (type === 'WORKFLOW') def.workflowId = values.workflowId;
    graph.addNode(def);
    onClose();
  };
  return (
    <FormModal<NodeValues>
      open
      title={t(`editor.addTitle.${type}`)}
      form={form}
      onFinish={add}
      onCancel={onClose}
      okText={t('editor.add')}
      initialValues={{
        key: freeKey(
          type,
          graph.nodes.map((node) => ({ key: node.id })),
        ),
      }}
    >
      <Form.Item
        name="key"
        label={t('node.key')}
        extra={t('node.keyHint', { example: placeholder('key.output') })}
        rules={keyRules(t, keys)}
      >
        <Input autoComplete="off" spellCheck={false} />
      </Form.Item>
      {type === 'JOB' && (
        <Form.Item
          name="jobId"
          label={t('node.job')}
          rules={[{ required: true, message: t('node.jobRequired') }]}
        >
          <JobPicker />
        </Form.Item>
      )}
      {type === 'DECISION' && (
        <Form.Item
          name="expression"
          label={t('node.expression')}
          extra={t('node.expressionHint')}
          rules={[
            { required: true, whitespace: true, message: t('node.expressionRequired') },
            {
              max: WORKFLOW_LIMITS.expressionLength,
              message: t('tooLong', { max: WORKFLOW_LIMITS.expressionLength }),
            },
          ]}
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
    </FormModal>
  );
}

interface EdgeValues {
  from?: string;
  to?: string;
  condition: WorkflowEdgeCondition;
  value?: string;
}

export function AddEdgeModal({ graph, onClose }: { graph: WorkflowGraph; onClose: () => void }) {
  const { t } = useTranslation('workflows');
  const [form] = Form.useForm<EdgeValues>();
  const from = Form.useWatch('from', form);
  const fromDecision =
    from !== undefined &&
    graph.nodes.some((node) => node.id === from && nodeType(node.data.def) === 'DECISION');
  const options = graph.nodes.map((node) => ({ value: node.id, label: node.id }));
  const add = (values: EdgeValues) => {
    const value = values.value?.trim();
    const def: WorkflowEdge = {
      from: values.from!,
      to: values.to!,
      condition: values.condition,
      ...(fromDecision && value !== undefined && value !== '' ? { value } : {}),
    };
    const refusal = graph.addEdge(def);
    if (refusal === null) {
      onClose();
      return;
    }
    form.setFields([{ name: 'to', errors: [t(`edge.refused.${refusal}`)] }]);
  };
  return (
    <FormModal<EdgeValues>
      open
      title={t('editor.addEdgeTitle')}
      form={form}
      onFinish={add}
      onCancel={onClose}
      okText={t('editor.add')}
      initialValues={{ condition: 'SUCCESS' }}
    >
      <Form.Item
        name="from"
        label={t('edge.from')}
        rules={[{ required: true, message: t('edge.fromRequired') }]}
      >
        <Select options={options} showSearch={{ optionFilterProp: 'label' }} />
      </Form.Item>
      <Form.Item name="to" label={t('edge.to')} rules={[{ required: true, message: t('edge.toRequired') }]}>
        <Select options={options} showSearch={{ optionFilterProp: 'label' }} />
      </Form.Item>
      <Form.Item name="condition" label={t('edge.condition')} extra={t('edge.conditionHint')}>
        <Select
          options={WORKFLOW_EDGE_CONDITIONS.map((value) => ({ value, label: t(`condition.${value}`) }))}
        />
      </Form.Item>
      {fromDecision && (
        <Form.Item name="value" label={t('edge.value')} extra={t('edge.valueHint')}>
          <Input autoComplete="off" spellCheck={false} />
        </Form.Item>
      )}
    </FormModal>
  );
}
