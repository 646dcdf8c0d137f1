/**
 * The editor's pickers: a job for a JOB node (searched by name on the server among the jobs the
 * user may use, each labelled with its app) and a workflow for a WORKFLOW node.
 */
import { Select } from 'antd';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../components/ApiErrorAlert';
import { useAllApps } from '../../components/useAllApps';
import { useJob } from '../fires/lookups';
import { useDebounced, useJobChoices } from '../jobs/queries';
import { useWorkflowChoices, useWorkflowName } from './queries';

interface PickerProps {
  id?: string;
  value?: number;
  onChange?: (value: number | undefined) => void;
  /** The workflow being edited, which a WORKFLOW node may not run. */
  excludeId?: number;
  'aria-label'?: string;
}

export function JobPicker({ id, value, onChange, 'aria-label': label }: PickerProps) {
  const { t } = useTranslation('workflows');
  const [search, setSearch] = useState('');
  const choices = useJobChoices(useDebounced(search, 300));
  const apps = useAllApps();
  const chosen = useJob(value);
  // Labels seen so far, so the chosen job keeps its name when a later search leaves it out.
  const labels = useRef(new Map<number, string>());
  const labelOf = (job: { id: number; name: string; appId: number }) =>
    `${job.name} (#${job.id}) · ${apps.byId.get(job.appId)?.appName ?? `#${job.appId}`}`;
  for (const job of choices.data?.items ?? []) labels.current.set(job.id, labelOf(job));
  if (chosen.data) labels.current.set(chosen.data.id, labelOf(chosen.data));
  const ids = new Set([...(choices.data?.items ?? []).map((job) => job.id)]);
  if (value !== undefined) ids.add(value);
  return (
    <Select<number>
      id={id}
      aria-label={label}
      value={value}
      onChange={(next) => {
        setSearch('');
        onChange?.(next);
      }}
      placeholder={t('node.jobPlaceholder')}
      loading={choices.isFetching}
      showSearch={{ filterOption: false, onSearch: setSearch, searchValue: search }}
      onBlur={() => setSearch('')}
      notFoundContent={choices.isError ? errorText(choices.error, t) : t('node.noJobsFound')}
      options={[...ids].map((jobId) => ({ value: jobId, label: labels.current.get(jobId) ?? `#${jobId}` }))}
    />
  );
}

export function WorkflowPicker({ id, value, onChange, excludeId, 'aria-label': label }: PickerProps) {
  const { t } = useTranslation('workflows');
  const [search, setSearch] = useState('');
  const choices = useWorkflowChoices(useDebounced(search, 300));
  const chosen = useWorkflowName(value);
  const labels = useRef(new Map<number, string>());
  for (const workflow of choices.data?.items ?? []) {
    labels.current.set(workflow.id, `${workflow.name} (#${workflow.id})`);
  }
  if (value !== undefined && typeof chosen.data === 'string') {
    labels.current.set(value, `${chosen.data} (#${value})`);
  }
  const ids = new Set((choices.data?.items ?? []).map((workflow) => workflow.id));
  if (excludeId !== undefined) ids.delete(excludeId);
  if (value !== undefined) ids.add(value);
  return (
    <Select<number>
      id={id}
      aria-label={label}
      value={value}
      onChange={(next) => {
        setSearch('');
        onChange?.(next);
      }}
      placeholder={t('node.workflowPlaceholder')}
      loading={choices.isFetching}
      showSearch={{ filterOption: false, onSearch: setSearch, searchValue: search }}
      onBlur={() => setSearch('')}
      notFoundContent={choices.isError ? errorText(choices.error, t) : t('node.noWorkflowsFound')}
      options={[...ids].map((workflowId) => ({
        value: workflowId,
        label: labels.current.get(workflowId) ?? `#${workflowId}`,
      }))}
    />
  );
}
