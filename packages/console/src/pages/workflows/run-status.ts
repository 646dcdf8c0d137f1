/** The colours of a workflow run's and its nodes' statuses, as tags and as node cards. */
import type { WorkflowNodeStatus } from '@tickwheel/protocol';
import { WORKFLOW_NODE_STATUSES, WORKFLOW_RUN_STATUSES } from '@tickwheel/protocol';
import type { WorkflowRunSummary } from '../../api/workflows';

export { WORKFLOW_NODE_STATUSES, WORKFLOW_RUN_STATUSES };

/** antd tag colours; the run statuses are the node statuses' names. */
const TAG_COLORS: Record<WorkflowNodeStatus, string> = {
  waiting: 'default',
  running: 'processing',
  succeeded: 'success',
  failed: 'error',
  skipped: 'default',
  stopped: 'warning',
};

/** A node card's border and background in the run view. */
const CARD_COLORS: Record<WorkflowNodeStatus, { border: string; background: string }> = {
  waiting: { border: '#d9d9d9', background: '#fafafa' },
  running: { border: '#1677ff', background: '#e6f4ff' },
  succeeded: { border: '#52c41a', background: '#f6ffed' },
  failed: { border: '#ff4d4f', background: '#fff2f0' },
  skipped: { border: '#bfbfbf', background: '#f5f5f5' },
  stopped: { border: '#faad14', background: '#fffbe6' },
};

function isKnown(status: string): status is WorkflowNodeStatus {
  return (WORKFLOW_NODE_STATUSES as readonly string[]).includes(status);
}

export function statusTagColor(status: string): string {
  return isKnown(status) ? TAG_COLORS[status] : 'default';
}

export function statusCardColors(status: string): { border: string; background: string } {
  return isKnown(status) ? CARD_COLORS[status] : CARD_COLORS.waiting;
}

/** A run's length, once it has started: "1.2 s", "3 min 4 s". */
export function runDuration(
  run: Pick<WorkflowRunSummary, 'startedAt' | 'finishedAt'>,
  now = Date.now(),
): string {
  if (run.startedAt === null) return '—';
  const ms = (run.finishedAt ?? now) - run.startedAt;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
