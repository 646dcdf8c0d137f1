/**
 * A workflow node on the canvas: its key, its type, what it runs (the job's or workflow's name,
 * or the decision's expression), and in a run view its status as the card's colour. Edges come
 * in on the left handle and leave from the right one.
 */

import { Handle, type NodeProps, Position } from '@xyflow/react';
import { Tag, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useJob } from '../fires/lookups';
import { type FlowNode, NODE_HEIGHT, NODE_WIDTH, nodeType } from './graph';
import { useWorkflowName } from './queries';
import { statusCardColors } from './run-status';

const TYPE_COLORS = { JOB: 'blue', DECISION: 'purple', WORKFLOW: 'cyan' } as const;

export function WorkflowNodeCard({ data, selected }: NodeProps<FlowNode>) {
  const { t } = useTranslation('workflows');
  const { def, status, problem } = data;
  const type = nodeType(def);
  const colors = status === undefined ? { border: '#d9d9d9', background: '#fff' } : statusCardColors(status);
  const border = problem ? '#ff4d4f' : selected ? '#1677ff' : colors.border;
  return (
    <div
      data-testid={`wf-node-${def.key}`}
      data-status={status}
      style={{
        width: NODE_WIDTH,
        minHeight: NODE_HEIGHT,
        boxSizing: 'border-box',
        padding: '6px 10px',
        borderRadius: 8,
        border: `2px ${def.disabled ? 'dashed' : 'solid'} ${border}`,
        background: colors.background,
        boxShadow: selected ? '0 0 0 3px rgba(22, 119, 255, 0.2)' : undefined,
        opacity: def.disabled ? 0.6 : 1,
      }}
    >
      <Handle type="target" position={Position.Left} data-testid={`wf-handle-in-${def.key}`} />
      <div style={{ display: 'flex', justifyContent: 'space-between', alignItems: 'center', gap: 4 }}>
        <Typography.Text strong ellipsis style={{ maxWidth: 100 }}>
          {def.key}
        </Typography.Text>
        <Tag color={TYPE_COLORS[type]} style={{ marginInlineEnd: 0, fontSize: 11, lineHeight: '16px' }}>
          {t(`nodeType.${type}`)}
        </Tag>
      </div>
      <NodeSubject type={type} jobId={def.jobId} workflowId={def.workflowId} expression={def.expression} />
      {(status !== undefined || def.disabled || def.continueOnFailure) && (
        <div style={{ fontSize: 11, marginTop: 2 }}>
          {status !== undefined && (
            <Typography.Text type="secondary" style={{ fontSize: 11 }}>
              {t(`status.${status}`, { defaultValue: status })}
            </Typography.Text>
          )}
          {def.disabled && (
            <Typography.Text type="secondary" style={{ fontSize: 11, marginLeft: 4 }}>
              {t('node.disabledMark')}
            </Typography.Text>
          )}
          {def.continueOnFailure && (
            <Typography.Text type="secondary" style={{ fontSize: 11, marginLeft: 4 }}>
              {t('node.continueMark')}
            </Typography.Text>
          )}
        </div>
      )}
      <Handle type="source" position={Position.Right} data-testid={`wf-handle-out-${def.key}`} />
    </div>
  );
}

function NodeSubject({
  type,
  jobId,
  workflowId,
  expression,
}: {
  type: string;
  jobId: number | undefined;
  workflowId: number | undefined;
  expression: string | undefined;
}) {
  const { t } = useTranslation('workflows');
  const job = useJob(type === 'JOB' ? jobId : undefined);
  const workflow = useWorkflowName(type === 'WORKFLOW' ? workflowId : undefined);
  let text: string;
  if (type === 'DECISION') text = expression ?? '';
  else if (type === 'WORKFLOW')
    text =
      workflowId === undefined
        ? t('node.noWorkflow')
        : workflow.data === null
          ? t('node.missingWorkflow', { id: workflowId })
          : (workflow.data ?? `#${workflowId}`);
  else
    text =
      jobId === undefined
        ? t('node.noJob')
        : job.data === null
          ? t('node.missingJob', { id: jobId })
          : job.data === undefined
            ? `#${jobId}`
            : `${job.data.name} (#${jobId})`;
  return (
    <Tooltip title={text} mouseEnterDelay={0.5}>
      <Typography.Text
        type="secondary"
        ellipsis
        code={type === 'DECISION'}
        style={{ display: 'block', fontSize: 12 }}
      >
        {text}
      </Typography.Text>
    </Tooltip>
  );
}
