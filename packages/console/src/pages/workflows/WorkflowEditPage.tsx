/**
 * `/workflows/new` (optionally `?appId=` or `?copyFrom=<workflow id>`) and `/workflows/:id`:
 * loads what the editor starts from — nothing, the workflow to copy, or the workflow to edit.
 */
import { Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { useParams, useSearchParams } from 'react-router-dom';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { PageLoading } from '../../components/PageLoading';
import { PageTitle } from '../../components/PageTitle';
import { idOf } from './filters';
import { useWorkflow } from './queries';
import { WorkflowForm } from './WorkflowForm';
import { newWorkflowValues, workflowValues } from './workflowValues';

export default function WorkflowEditPage() {
  const { t } = useTranslation('workflows');
  const params = useParams();
  const [search] = useSearchParams();
  const editId = idOf(params.id);
  const copyId = idOf(search.get('copyFrom'));
  const source = useWorkflow(editId ?? copyId);

  if (params.id !== undefined && editId === undefined) {
    return <Result status="404" title="404" subTitle={t('common:notFound')} />;
  }
  const title = editId !== undefined ? t('editTitle') : copyId !== undefined ? t('copyTitle') : t('newTitle');
  if ((editId ?? copyId) !== undefined) {
    if (source.isError) {
      return (
        <>
          <PageTitle title={title} />
          <ApiErrorAlert error={source.error} onRetry={() => void source.refetch()} />
        </>
      );
    }
    if (source.data === undefined || !source.isFetchedAfterMount) return <PageLoading />;
  }

  const workflow = source.data;
  if (editId !== undefined && workflow !== undefined) {
    return (
      <WorkflowForm
        key={`edit-${workflow.id}`}
        title={title}
        workflow={workflow}
        initialValues={workflowValues(workflow)}
        initialGraph={workflow}
      />
    );
  }
  if (copyId !== undefined && workflow !== undefined) {
    return (
      <WorkflowForm
        key={`copy-${workflow.id}`}
        title={title}
        initialValues={{ ...workflowValues(workflow), name: t('copyName', { name: workflow.name }) }}
        initialGraph={workflow}
      />
    );
  }
  return (
    <WorkflowForm
      key="new"
      title={title}
      initialValues={newWorkflowValues(idOf(search.get('appId')))}
      initialGraph={{ nodes: [], edges: [] }}
    />
  );
}
